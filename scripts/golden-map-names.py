# Maps generated pod names (<replicaset>-<5>, <daemonset>-<5>) back to the
# old <app>-<ordinal> form by inverting util/podname.rs independently.
import re, sys, os
A = "bcdfghjklmnpqrstvwxz2456789"; SPACE = 27**5; M = (1 << 64) - 1
def key_of(p):
    h = 0xcbf29ce484222325
    for b in p.encode():
        h ^= b; h = (h * 0x100000001b3) & M
    h ^= h >> 33; h = (h * 0xff51afd7ed558ccd) & M
    return h ^ (h >> 33)
def rnd(k, i, half):
    x = k ^ (i << 56) ^ half
    x = (x * 0x9e3779b97f4a7c15) & M; x ^= x >> 29; x = (x * 0xbf58476d1ce4e5b9) & M
    return (x >> 32) & 0xfff
def finv(k, v):
    l, r = v >> 12, v & 0xfff
    for i in (3, 2, 1, 0):
        t = r ^ rnd(k, i, l); r = l; l = t
    return (l << 12) | r
def ordinal(prefix, s):
    v = 0
    for c in s: v = v * 27 + A.index(c)
    k = key_of(prefix)
    while True:
        v = finv(k, v)
        if v < SPACE: return v
tok = re.compile(r"([A-Za-z0-9._/-]+)-([%s]{5})(?![A-Za-z0-9])" % A)
hashseg = re.compile(r"^(.*)-([%s]{6,10})$" % A)
def sub(m):
    prefix, s = m.group(1), m.group(2)
    # The key is the owner's name as the engine holds it: try the prefix
    # after each '/' (kind/, namespace/) and keep the one that decodes to
    # the smallest ordinal (a wrong key gives one of 14 million).
    cands = [prefix] + [prefix[i+1:] for i, c in enumerate(prefix) if c == '/']
    o, k = min((ordinal(k, s), k) for k in cands)
    lead = prefix[:len(prefix) - len(k)]
    h = hashseg.match(k)
    base = h.group(1) if h else k
    return "%s%s-%d" % (lead, base, o)
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
for f in sorted(os.listdir(src)):
    t = open(os.path.join(src, f)).read()
    open(os.path.join(dst, f), "w").write(tok.sub(sub, t))
