# Writes tests/scenes/lit_sphere.pvs: the sphere's vertices (normal quaternions, view vectors)
# and the D0, SP and FR LUT data are computed here. Run: python3 scripts/gen-lit-sphere.py
import math, os
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'scenes', 'lit_sphere.pvs')
W,H=128,128
def f16(f):
    s=0x8000 if f<0 else 0; f=abs(f)
    if f<2**-14: return s
    m,e=math.frexp(f)
    return s|((e+14)<<10)|(int(m*2048)&0x3FF)
def col(r,g,b): return b|(g<<10)|(r<<20)
def lut_word(v, nxt):
    val=int(round(max(0,min(1,v))*4095)); d=int(round((max(0,min(1,nxt))-val/4095)*2047))  # value /4095, difference /2047
    return val | ((-d)|0x800 if d<0 else d)<<12
def lut(fn, signed):
    # fn over the LUT's input domain; entries in the order the index reads them
    xs=[]
    if signed:
        order=list(range(-128,128)); xs=[i/128 for i in order]
        vals=[fn(x) for x in xs]+[fn(1.0)]
        t=[0]*256
        for k,i in enumerate(order): t[i&255]=lut_word(vals[k], vals[k+1])
    else:
        vals=[fn(i/256) for i in range(257)]
        t=[lut_word(vals[i], vals[i+1]) for i in range(256)]
    return t
L=[]
L.append('''# A lit sphere (fragment lighting): one spot light, specular through D0, Fresnel.
# The front half of a unit sphere 3 units in front of the eye (eye space, looking down -z), drawn
# orthographically over a 128 x 128 RGBA8 buffer; each vertex carries its normal as a quaternion
# and its view vector (-position). One positional light at (1.5, 1.5, -1) with a spot cone
# aimed at the sphere's centre (SP LUT on -L.P: full inside cos 0.985, none outside cos 0.95),
# diffuse grey-white, ambient dim blue; specular0 white through D0 = (N.H)^24 (abs input);
# Fresnel FR = (1 - N.V)^3 into the secondary alpha. Configuration 5, D1/RB/RG/RR and distance
# attenuation off, clamp highlights on. TEV: stage 0 primary + secondary colour, stage 1 adds
# the Fresnel alpha times a blue constant (a rim). Expect: a dark blue-grey sphere (ambient) with
# a bright spot-lit disc towards the upper right, a white highlight inside it, and a blue rim.
# `picavk run -o DIR` writes DIR/lit_sphere.png.
shader vs
    .out outpos position
    .out outclr color
    .out outq normalquat
    .out outv view
    .alias inpos v0
    .alias inclr v1
    .alias inq v2
    .alias inv v3
    .proc main
        mov outpos, inpos
        mov outclr, inclr
        mov outq, inq
        mov outv, inv
        end
    .end
endshader
reg GPUREG_VSH_INPUTBUFFER_CONFIG = 0xA0000003
reg GPUREG_VSH_NUM_ATTR = 3
reg GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW = 0x3210
reg GPUREG_COLORBUFFER_FORMAT = 0x00000002             # RGBA8, 128 x 128 at 0x18000000
reg GPUREG_COLORBUFFER_LOC = 0x03000000
reg GPUREG_COLORBUFFER_READ = 0xF
reg GPUREG_COLORBUFFER_WRITE = 0xF
reg GPUREG_FRAMEBUFFER_DIM = 0x0107F080
reg GPUREG_VIEWPORT_WIDTH = 0x450000
reg GPUREG_VIEWPORT_HEIGHT = 0x450000
reg GPUREG_VIEWPORT_XY = 0
reg GPUREG_DEPTHMAP_ENABLE = 1
reg GPUREG_DEPTHMAP_SCALE = 0xBF0000
reg GPUREG_DEPTHMAP_OFFSET = 0
reg GPUREG_COLOR_OPERATION = 0x00E40100
reg GPUREG_BLEND_FUNC = 0x01010000
reg GPUREG_DEPTH_COLOR_MASK = 0xF00
reg GPUREG_TEXENV0_SOURCE = 0x00210021                 # fragment primary + fragment secondary
reg GPUREG_TEXENV0_COMBINER = 0x00000002               # RGB add, alpha replace
reg GPUREG_TEXENV1_SOURCE = 0x000E0FE2                 # RGB: secondary alpha * constant + previous
reg GPUREG_TEXENV1_OPERAND = 0x00000002                # RGB operand 0: source alpha
reg GPUREG_TEXENV1_COMBINER = 0x00000008               # multiply-add; alpha replace (constant)
reg GPUREG_TEXENV1_COLOR = 0xFFFF6020                  # blue rim colour, alpha 255
reg GPUREG_TEXENV2_SOURCE = 0x000F000F
reg GPUREG_TEXENV3_SOURCE = 0x000F000F
reg GPUREG_TEXENV4_SOURCE = 0x000F000F
reg GPUREG_TEXENV5_SOURCE = 0x000F000F
reg GPUREG_LIGHTING_ENABLE0 = 1
reg GPUREG_LIGHTING_ENABLE1 = 0
reg GPUREG_LIGHTING_NUM_LIGHTS = 0
reg GPUREG_LIGHTING_LIGHT_PERMUTATION = 0
reg GPUREG_LIGHTING_CONFIG0 = 0x88000458               # configuration 5, Fresnel to the secondary alpha, clamp highlights
reg GPUREG_LIGHTING_CONFIG1 = 0xFF7600FF               # D1 RB RG RR off, distance attenuation off, shadows off, spot on
reg GPUREG_LIGHTING_LUTINPUT_ABS = 0x00000200          # D0 N.H abs; SP signed; FR N.V abs
reg GPUREG_LIGHTING_LUTINPUT_SELECT = 0x00002400       # D0 N.H, SP -L.P, FR N.V
reg GPUREG_LIGHTING_LUTINPUT_SCALE = 0''')
lx,ly,lz=1.5,1.5,-1.0
cx,cy,cz=0,0,-3.0
d=(cx-lx,cy-ly,cz-lz); dl=math.sqrt(sum(c*c for c in d)); d=tuple(c/dl for c in d)
def fix13(v): return int(round(v*2048)) & 0x1FFF
# SPOTDIR holds the negated direction
L.append('reg GPUREG_LIGHT0_SPECULAR0 = 0x%08X' % col(255,255,255))
L.append('reg GPUREG_LIGHT0_SPECULAR1 = 0')
L.append('reg GPUREG_LIGHT0_DIFFUSE = 0x%08X' % col(220,210,190))
L.append('reg GPUREG_LIGHT0_AMBIENT = 0x%08X' % col(20,25,50))
L.append('reg GPUREG_LIGHT0_XY = 0x%08X' % (f16(lx)|f16(ly)<<16))
L.append('reg GPUREG_LIGHT0_Z = 0x%08X' % f16(lz))
L.append('reg GPUREG_LIGHT0_SPOTDIR_XY = 0x%08X' % (fix13(-d[0]) | fix13(-d[1])<<16))
L.append('reg GPUREG_LIGHT0_SPOTDIR_Z = 0x%08X' % fix13(-d[2]))
L.append('reg GPUREG_LIGHT0_CONFIG = 0')
L.append('reg GPUREG_LIGHTING_AMBIENT = 0x%08X' % col(10,10,12))
def spot(x):  # x = -L.P: cos of the angle to the axis
    t=(x-0.95)/(0.985-0.95); t=max(0,min(1,t)); return t*t*(3-2*t)
tables=[(0, lut(lambda x: x**24, False), 'D0 (N.H)^24'), (8, lut(spot, True), 'SP0 spot cone'), (3, lut(lambda x:(1-x)**3, False), 'FR (1 - N.V)^3')]
for t,data,name in tables:
    L.append('reg GPUREG_LIGHTING_LUT_INDEX = 0x%X     # %s' % (t<<8, name))
    for w in data: L.append('reg GPUREG_LIGHTING_LUT_DATA = 0x%06X' % w)
L.append('''mmio GPU_MEMFILL_DST_ADDR0 = 0x03000000
mmio GPU_MEMFILL_DST_END0 = 0x03002000
mmio GPU_MEMFILL_DATA0 = 0x000000FF                    # opaque black
mmio GPU_MEMFILL_CNT0 = 0x201
wait''')
# front hemisphere grid in (theta around z axis, phi from +z)
NT,NP=32,12
def vert(phi,th):
    n=(math.sin(phi)*math.cos(th), math.sin(phi)*math.sin(th), math.cos(phi))
    p=(cx+n[0],cy+n[1],cz+n[2])
    # quaternion taking (0,0,1) to n: axis (0,0,1) x n, angle acos(n.z)
    q=(-n[1], n[0], 0.0, 1.0+n[2]); ql=math.sqrt(sum(c*c for c in q)); q=tuple(c/ql for c in q)
    clip=(p[0]/1.1, p[1]/1.1, -0.5, 1.0)
    view=(-p[0],-p[1],-p[2])
    return clip+(1,1,1,1)+q+view+(0,)
tris=[]
for i in range(NP):
    for j in range(NT):
        p0,p1=(math.pi/2)*i/NP,(math.pi/2)*(i+1)/NP
        t0,t1=2*math.pi*j/NT,2*math.pi*(j+1)/NT
        a,b,c,dd=vert(p0,t0),vert(p1,t0),vert(p1,t1),vert(p0,t1)
        if i>0: tris += [a,b,c]
        tris += [a,c,dd] if i>0 else [a,b,c]
addr=0x18200000
for k,v in enumerate(tris):
    L.append('mem 0x%08X f32 %s' % (addr+64*k, ' '.join('%.6g'%x for x in v)))
L.append('''reg GPUREG_ATTRIBBUFFERS_LOC = 0x03040000
reg GPUREG_ATTRIBBUFFERS_FORMAT_LOW = 0xFFFF
reg GPUREG_ATTRIBBUFFERS_FORMAT_HIGH = 0x30000000
reg GPUREG_ATTRIBBUFFER0_OFFSET = 0
reg GPUREG_ATTRIBBUFFER0_CONFIG1 = 0x3210
reg GPUREG_ATTRIBBUFFER0_CONFIG2 = 0x40400000
reg GPUREG_PRIMITIVE_CONFIG = 3
reg GPUREG_NUMVERTICES = %d
reg GPUREG_VERTEX_OFFSET = 0
reg GPUREG_DRAWARRAYS = 1
wait
save color lit_sphere''' % len(tris))
open(OUT,'w').write('\n'.join(L)+'\n')
print(len(tris))
P='''probe color 4 4 rgba(0,0,0,255)                        # background
probe color 64 122 rgba(0,0,0,255)                     # just above the sphere's top edge
probe color 64 64 rgba(12,12,14,255) within 2          # facing the eye, outside the cone: global ambient, no rim
probe color 40 40 rgba(11,14,23,255) within 2          # lower left, outside the cone: ambient and a little rim
probe color 6 64 rgba(49,115,255,255) within 3         # the left edge: the Fresnel rim
probe color 88 88 rgba(255,255,255,255) within 2       # the highlight
probe color 104 72 rgba(201,208,243,255) within 3      # inside the cone, off the highlight: diffuse + rim
expect errors 0
'''
open(OUT,'a').write(P)
