# Writes tests/scenes/proctex.pvs: one procedural-texture quad per clamp mode (and one with noise),
# with the LUT data computed here. Run: python3 scripts/gen-proctex-scene.py
import math, os
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'scenes', 'proctex.pvs')
def f16(f):
    s=0x8000 if f<0 else 0; f=abs(f)
    if f<2**-14: return s
    m,e=math.frexp(f)
    return s|((e+14)<<10)|(int(m*2048)&0x3FF)
L=['''# Procedural textures (texture unit 3 as TEV source 6): six 32 x 32 quads side by side in a 192 x 32
# RGBA8 buffer, texture coordinates from (0, 0) at each quad's lower left to (2.5, 2.5) at its upper
# right. The RGB function is sqrt(u^2 + v^2) (capped at 1) through an identity RGB map; the colour
# LUT runs from blue (entry 0) to yellow (entry 255), linear filter, offset 0, width 256. Quads from
# the left: u and v clamp 0 (to zero: past 1 becomes 0, so only the quarter disc near the lower left
# corner is graded, the rest blue), 1 (to edge: a graded quarter disc, yellow beyond), 2 (symmetric
# repeat: the pattern restarts at 1 and 2), 3 (mirrored repeat: it reflects at 1 and 2), 4 (pulse:
# 0 up to 0.5, 1 past it: blue square at the corner, yellow elsewhere), and 3 with noise (amplitude
# 0.3, frequency 2, a smooth noise LUT) which wobbles the mirrored pattern. Alpha is the colour
# LUT's (255), except on the pulse quad: separate alpha, the alpha map of max(u, v), so its corner
# square has alpha 0 (black in the PNG). `picavk run -o DIR` writes DIR/proctex.png.
shader vs
    .out outpos position
    .out outclr color
    .out outtc texcoord0
    .alias inpos v0
    .alias inclr v1
    .alias intc v2
    .proc main
        mov outpos, inpos
        mov outclr, inclr
        mov outtc, intc
        end
    .end
endshader
reg GPUREG_VSH_INPUTBUFFER_CONFIG = 0xA0000002
reg GPUREG_VSH_NUM_ATTR = 2
reg GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW = 0x210
reg GPUREG_COLORBUFFER_FORMAT = 0x00000002             # RGBA8, 192 x 32 at 0x18000000
reg GPUREG_COLORBUFFER_LOC = 0x03000000
reg GPUREG_COLORBUFFER_READ = 0xF
reg GPUREG_COLORBUFFER_WRITE = 0xF
reg GPUREG_FRAMEBUFFER_DIM = 0x0101F0C0
reg GPUREG_VIEWPORT_WIDTH = 0x458000                   # 96
reg GPUREG_VIEWPORT_HEIGHT = 0x430000                  # 16
reg GPUREG_VIEWPORT_XY = 0
reg GPUREG_DEPTHMAP_ENABLE = 1
reg GPUREG_DEPTHMAP_SCALE = 0xBF0000
reg GPUREG_DEPTHMAP_OFFSET = 0
reg GPUREG_COLOR_OPERATION = 0x00E40100
reg GPUREG_BLEND_FUNC = 0x01010000
reg GPUREG_DEPTH_COLOR_MASK = 0xF00
reg GPUREG_TEXENV0_SOURCE = 0x00060006                 # texture 3
reg GPUREG_TEXENV1_SOURCE = 0x000F000F
reg GPUREG_TEXENV2_SOURCE = 0x000F000F
reg GPUREG_TEXENV3_SOURCE = 0x000F000F
reg GPUREG_TEXENV4_SOURCE = 0x000F000F
reg GPUREG_TEXENV5_SOURCE = 0x000F000F
reg GPUREG_TEXUNIT_CONFIG = 0x00001400                 # texture 3 on, texture 0's coordinates
reg GPUREG_TEXUNIT3_PROCTEX1 = 0x%08X                  # u noise: amplitude 0.3, phase 0.25
reg GPUREG_TEXUNIT3_PROCTEX2 = 0x%08X                  # v noise: amplitude 0.3, phase 0.5
reg GPUREG_TEXUNIT3_PROCTEX3 = 0x%08X                  # frequency 2 in u and v
reg GPUREG_TEXUNIT3_PROCTEX4 = 0x%08X                  # linear, width 256
reg GPUREG_TEXUNIT3_PROCTEX5 = 0xE0C08000              # level 0 offset 0''' % (
    (int(0.3*4096) & 0xFFFF) | f16(0.25) << 16, (int(0.3*4096) & 0xFFFF) | f16(0.5) << 16,
    f16(2.0) | f16(2.0) << 16, 1 | 0x60 << 3 | 256 % 256 << 11)]
# width 256 does not fit 8 bits: use 255 entries' span with width 255? keep width field = 0xFF
L[0] = L[0].replace('reg GPUREG_TEXUNIT3_PROCTEX4 = 0x%08X' % (1 | 0x60 << 3), 'reg GPUREG_TEXUNIT3_PROCTEX4 = 0x%08X' % (1 | 0x60 << 3 | 255 << 11)).replace('linear, width 256', 'linear, width 255')
def value_lut(fn):
    vals=[int(round(max(0,min(1,fn(i/128)))*4095)) for i in range(129)]
    return [vals[i] | ((vals[i+1]-vals[i]) & 0xFFF) << 12 for i in range(128)]
tables = [(0, value_lut(lambda x: x*x*(3-2*x)), 'noise: smoothstep'), (2, value_lut(lambda x: x), 'RGB map: identity'),
          (3, value_lut(lambda x: x), 'alpha map: identity')]
color = [i | i << 8 | (255 - i) << 16 | 0xFF << 24 for i in range(256)]
diff = [(1 & 0xFF) | (1 & 0xFF) << 8 | ((-1) & 0xFF) << 16 for i in range(255)] + [0]
for t, data, name in tables + [(4, color, 'colour: blue to yellow'), (5, diff, 'colour differences (halves)')]:
    L.append('reg GPUREG_PROCTEX_LUT = 0x%X     # %s' % (t << 8, name))
    for w in data: L.append('reg GPUREG_PROCTEX_LUT_DATA = 0x%08X' % w)
L.append('''mmio GPU_MEMFILL_DST_ADDR0 = 0x03000000
mmio GPU_MEMFILL_DST_END0 = 0x03000C00
mmio GPU_MEMFILL_DATA0 = 0x000000FF
mmio GPU_MEMFILL_CNT0 = 0x201
wait''')
verts=[]
for q in range(6):
    x0 = -1 + q * (2/6); x1 = x0 + 2/6
    for (x, y, u, v) in [(x0,-1,0,0),(x1,-1,2.5,0),(x1,1,2.5,2.5),(x0,-1,0,0),(x1,1,2.5,2.5),(x0,1,0,2.5)]:
        verts.append((x, y, -0.5, 1, 1, 1, 1, 1, u, v, 0, 1))
for k, v in enumerate(verts):
    L.append('mem 0x%08X f32 %s' % (0x18200000 + 48*k, ' '.join('%.6g' % c for c in v)))
L.append('''reg GPUREG_ATTRIBBUFFERS_LOC = 0x03040000
reg GPUREG_ATTRIBBUFFERS_FORMAT_LOW = 0xFFF
reg GPUREG_ATTRIBBUFFERS_FORMAT_HIGH = 0x20000000
reg GPUREG_ATTRIBBUFFER0_OFFSET = 0
reg GPUREG_ATTRIBBUFFER0_CONFIG1 = 0x210
reg GPUREG_ATTRIBBUFFER0_CONFIG2 = 0x30300000
reg GPUREG_PRIMITIVE_CONFIG = 2
reg GPUREG_NUMVERTICES = 6''')
for q in range(6):
    mode = q if q < 5 else 3
    noise = 1 if q == 5 else 0
    p0 = mode | mode << 3 | 6 << 6 | 8 << 10 | (1 << 14 if q == 4 else 0) | noise << 15
    L.append('reg GPUREG_TEXUNIT3_PROCTEX0 = 0x%08X          # clamp %d%s' % (p0, mode, ', noise' if noise else ''))
    L.append('reg GPUREG_VERTEX_OFFSET = %d' % (6*q))
    L.append('reg GPUREG_DRAWARRAYS = 1')
L.append('wait\nsave color proctex')
def clampc(c, mode):
    if mode == 0: return 0.0 if c > 1 else c
    if mode == 1: return min(c, 1.0)
    if mode == 2: return c - math.floor(c)
    if mode == 3:
        n = int(c); f = c - n; return f if n % 2 == 0 else 1 - f
    return 0.0 if c <= 0.5 else 1.0
def expect(q, x, y):
    u = 2.5 * (x + 0.5) / 32; v = 2.5 * (y + 0.5) / 32
    u = clampc(u, q); v = clampc(v, q)
    f = min(math.sqrt(u*u + v*v), 1.0)
    s = f * 128; i = min(int(s), 127); m = i/128 + (s - i)/128 * 0  # identity map: value i/128 (rounded /4095)
    val = [int(round(min(1, j/128)*4095)) for j in range(129)]
    r = val[i]/4095 + (s - i) * (val[i+1]-val[i]) / 4095
    idx = r * 254; ii = int(idx); fr = idx - ii
    return (int(ii + fr*2), int(ii + fr*2), int(255 - ii - fr*2))
for q in range(5):
    for (x, y) in ((4, 4), (20, 8), (28, 28), (10, 24)):
        r, g, b = expect(q, x, y)
        a = int(max(clampc(2.5*(x+0.5)/32, q), clampc(2.5*(y+0.5)/32, q)) * 255) if q == 4 else 255
        L.append('probe color %d %d rgba(%d,%d,%d,%d) within 2' % (32*q + x, y, r, g, b, a))
L.append('expect errors 0')
open(OUT, 'w').write('\n'.join(L) + '\n')
