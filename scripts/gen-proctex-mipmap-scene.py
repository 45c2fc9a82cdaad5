# Writes tests/scenes/proctex_mipmap.pvs: procedural-texture mipmap levels, one flat colour per level
# in the colour LUT, picked by the level of detail of quads whose texture coordinates span more and
# more per pixel. Run: python3 scripts/gen-proctex-mipmap-scene.py
import math, os
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'scenes', 'proctex_mipmap.pvs')
def f16(f):
    s=0x8000 if f<0 else 0; f=abs(f)
    if f<2**-14: return s
    m,e=math.frexp(f)
    return s|((e+14)<<10)|(int(m*2048)&0x3FF)
def f24(f):
    m,e=math.frexp(f)  # f = m * 2^e, m in [0.5, 1)
    return ((e-1+63)<<16) | (int((m*2-1)*65536) & 0xFFFF)
WIDTH = 32                        # PROCTEX4 width: level L spans width >> L entries
LEVELS = [(255,0,0), (255,128,0), (255,255,0), (0,255,0), (0,255,255), (0,0,255), (255,0,255), (255,255,255)]
# where each level reads the colour LUT: PROCTEX5 bytes for levels 0-3, fixed 0xF0, 0xF8, 0xFC, 0xFE
# for 4-7; index = offset + r * ((width >> L) - 1), so levels 6 and 7 (width 0) read offset - r
REGION = [(0x00,0x40), (0x40,0x60), (0x60,0x70), (0x70,0x80), (0xF0,0xF8), (0xF8,0xFB), (0xFB,0xFD), (0xFD,0x100)]
color = [0] * 256
for L, (a, b) in enumerate(REGION):
    r, g, bl = LEVELS[L]
    for i in range(a, b): color[i] = r | g << 8 | bl << 16 | 0xFF << 24
L_ = ['''# Procedural-texture mipmaps: a 256 x 64 RGBA8 buffer of sixteen 32 x 32 quads. The colour LUT holds
# one flat colour per mipmap level: 0 red, 1 orange, 2 yellow, 3 green, 4 cyan, 5 blue, 6 magenta,
# 7 white (levels 0-3 at the PROCTEX5 offsets 0x00, 0x40, 0x60, 0x70, levels 4-7 at 0xF0, 0xF8, 0xFC,
# 0xFE). Width 32, LOD bias 1, min LOD 0, max LOD 7, so a quad whose texture coordinates run over
# `span` in u along x and in v along y has level of detail log2(32 * 2 * span / 32) = log2(2 span).
# Bottom row (y 0-31): filter 2 (nearest, mipmap nearest), spans 0.5, 1, ..., 64: levels 0-7 left to
# right, each quad one flat colour of its level. Top row (y 32-63): filter 5 (linear, mipmap
# linear), spans 2^(k - 0.5): levels of detail k + 0.5, halfway blends of level k and k + 1 (dark red-
# orange, orange-yellow, ...), and last a span of 256 (level of detail 9, clamped to 7: white).
# `picavk run -o DIR` writes DIR/proctex_mipmap.png.
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
reg GPUREG_COLORBUFFER_FORMAT = 0x00000002             # RGBA8, 256 x 64 at 0x18000000
reg GPUREG_COLORBUFFER_LOC = 0x03000000
reg GPUREG_COLORBUFFER_READ = 0xF
reg GPUREG_COLORBUFFER_WRITE = 0xF
reg GPUREG_FRAMEBUFFER_DIM = 0x%08X
reg GPUREG_VIEWPORT_WIDTH = 0x%06X                   # 128
reg GPUREG_VIEWPORT_HEIGHT = 0x%06X                  # 32
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
reg GPUREG_TEXUNIT3_PROCTEX0 = 0x%08X          # u, clamp to edge, LOD bias low byte
reg GPUREG_TEXUNIT3_PROCTEX5 = 0x70604000              # level 0-3 offsets''' % (
    0x01000000 | 63 << 12 | 256, f24(128), f24(32), 1 | 1 << 3 | (f16(1.0) & 0xFF) << 20)]
def value_lut(fn):
    vals=[int(round(max(0,min(1,fn(i/128)))*4095)) for i in range(129)]
    return [vals[i] | ((vals[i+1]-vals[i]) & 0xFFF) << 12 for i in range(128)]
for t, data, name in [(2, value_lut(lambda x: x), 'RGB map: identity'), (4, color, 'colour: a flat colour per level'),
                      (5, [0] * 256, 'colour differences: none')]:
    L_.append('reg GPUREG_PROCTEX_LUT = 0x%X     # %s' % (t << 8, name))
    for w in data: L_.append('reg GPUREG_PROCTEX_LUT_DATA = 0x%08X' % w)
L_.append('''mmio GPU_MEMFILL_DST_ADDR0 = 0x03000000
mmio GPU_MEMFILL_DST_END0 = 0x03002000
mmio GPU_MEMFILL_DATA0 = 0x000000FF
mmio GPU_MEMFILL_CNT0 = 0x201
wait''')
quads = []  # (row, column, span, filter)
for k in range(8): quads.append((0, k, 2.0 ** (k - 1), 2))
for k in range(7): quads.append((1, k, 2.0 ** (k - 0.5), 5))
quads.append((1, 7, 256.0, 5))
verts = []
for (row, col, span, filt) in quads:
    x0 = -1 + col * 0.25; x1 = x0 + 0.25; y0 = -1 + row; y1 = y0 + 1
    for (x, y, u, v) in [(x0,y0,0,0),(x1,y0,span,0),(x1,y1,span,span),(x0,y0,0,0),(x1,y1,span,span),(x0,y1,0,span)]:
        verts.append((x, y, -0.5, 1, 1, 1, 1, 1, u, v, 0, 1))
for k, v in enumerate(verts):
    L_.append('mem 0x%08X f32 %s' % (0x18200000 + 48*k, ' '.join('%.9g' % c for c in v)))
L_.append('''reg GPUREG_ATTRIBBUFFERS_LOC = 0x03040000
reg GPUREG_ATTRIBBUFFERS_FORMAT_LOW = 0xFFF
reg GPUREG_ATTRIBBUFFERS_FORMAT_HIGH = 0x20000000
reg GPUREG_ATTRIBBUFFER0_OFFSET = 0
reg GPUREG_ATTRIBBUFFER0_CONFIG1 = 0x210
reg GPUREG_ATTRIBBUFFER0_CONFIG2 = 0x30300000
reg GPUREG_PRIMITIVE_CONFIG = 2
reg GPUREG_NUMVERTICES = 6''')
for n, (row, col, span, filt) in enumerate(quads):
    p4 = filt | 0 << 3 | 7 << 7 | WIDTH << 11 | (f16(1.0) >> 8) << 19
    L_.append('reg GPUREG_TEXUNIT3_PROCTEX4 = 0x%08X          # filter %d, LOD 0-7, width %d, span %g' % (p4, filt, WIDTH, span))
    L_.append('reg GPUREG_VERTEX_OFFSET = %d' % (6*n))
    L_.append('reg GPUREG_DRAWARRAYS = 1')
L_.append('wait\nsave color proctex_mipmap')
for (row, col, span, filt) in quads:
    lod = min(math.log2(2 * span), 7)
    if filt == 2:
        c = LEVELS[int(math.floor(lod + 0.5))]
    else:
        l = int(lod); f = lod - l; c0 = LEVELS[l]; c1 = LEVELS[min(l + 1, 7)]
        c = tuple(int(c0[i] + f * (c1[i] - c0[i])) for i in range(3))
    for (dx, dy) in ((16, 16), (5, 27)):
        L_.append('probe color %d %d rgba(%d,%d,%d,255) within 1' % (32*col + dx, 32*row + dy, c[0], c[1], c[2]))
L_.append('expect errors 0')
open(OUT, 'w').write('\n'.join(L_) + '\n')
