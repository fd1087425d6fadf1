"""Per-instruction-kind L2 requests/sectors from an ncu source page (ncu --import R --page source --csv --print-source sass): python3 ncu_source_summary.py FILE.csv"""
import csv, sys, re, collections
f = sys.argv[1]
lines = open(f).read().splitlines()
r = csv.reader(lines[1:]); hdr = next(r)
rows = [dict(zip(hdr, x)) for x in r]
def num(s):
    try: return float(s.replace(',', ''))
    except: return 0.0
agg = collections.defaultdict(lambda: [0,0,0,0,0])
for x in rows:
    s = num(x['L2 Theoretical Sectors Global']); q = num(x['L1 Tag Requests Global'])
    if s == 0 and q == 0: continue
    op = re.sub(r'^@!?P\d\s+', '', x['Source'].strip()).split()[0]
    a = agg[op]; a[0]+=num(x['Instructions Executed']); a[1]+=q; a[2]+=s; a[3]+=num(x['L2 Theoretical Sectors Global Ideal']); a[4]+=num(x['Warp Stall Sampling (All Samples)'])
for op, a in sorted(agg.items(), key=lambda t: -t[1][2]):
    print(f"{op:34} inst {a[0]/1e3:7.0f}k req {a[1]/1e6:6.2f}M sect {a[2]/1e6:6.2f}M ideal {a[3]/1e6:6.2f}M samples {a[4]:6.0f}")
