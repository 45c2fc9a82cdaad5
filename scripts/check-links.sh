#!/bin/bash
# Checks the relative links of README.md, docs/*.md and tests/README.md: every
# [text](path) and <img src="path"> must name an existing file, and a #anchor
# must be a heading of that file (GitHub's rule: lower case, punctuation
# dropped, spaces to hyphens).  Prints each broken link; exit status 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - "$@" <<'PY'
import os, re, sys
files = ['README.md', 'tests/README.md'] + sorted('docs/' + f for f in os.listdir('docs') if f.endswith('.md'))
files = [f for f in files if os.path.exists(f)]

def slugs(path):
    out, fence = set(), False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            fence = not fence
        m = None if fence else re.match(r'#{1,6} (.*)', line)
        if m:
            s = re.sub(r'[^\w\- ]', '', m.group(1).strip().lower()).replace(' ', '-')
            n, base = 1, s
            while s in out:
                s = f'{base}-{n}'; n += 1
            out.add(s)
    return out

bad = 0
for f in files:
    text = open(f, encoding='utf-8').read()
    text = re.sub(r'```.*?```', '', text, flags=re.S)
    links = re.findall(r'\]\(([^)\s]+)\)', text) + re.findall(r'<img src="([^"]+)"', text)
    for link in links:
        if re.match(r'[a-z]+:', link):
            continue
        path, _, anchor = link.partition('#')
        target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(target):
            print(f'{f}: {link}: no such file'); bad += 1
        elif anchor and target.endswith('.md') and anchor not in slugs(target):
            print(f'{f}: {link}: no such heading'); bad += 1
sys.exit(1 if bad else 0)
PY
