"""Same-run ratios of the tile variants (call 4): python3 ab_ratios.py tiles/round1-results.csv tiles/round2-results.csv tiles/round3-results.csv"""
import csv, sys, math, collections
runs = sys.argv[1:]
pairs = [('cuda.csr.binned_tile','cuda.csr.binned'), ('cuda.csr.binned_stream_tile','cuda.csr.binned_stream'), ('cuda.csr.binned_stream_tile8','cuda.csr.binned_stream')]
T = collections.defaultdict(dict)
for d in runs:
    for x in csv.DictReader(open(d if d.endswith('.csv') else d + '/results.csv')):
        if x['status'] != 'ok' or x['backend'] != 'cuda': continue
        T[(x['matrix'], x['precision'], d)][x['kernel']] = float(x['median_ms'])
keys = sorted(set((m, p) for m, p, d in T))
agg = collections.defaultdict(list)
def cu(m,p,d): return min(v for k, v in T[(m, p, d)].items() if 'cusparse' in k)
def rat(m,p,k):
    r=[cu(m,p,d)/T[(m,p,d)][k] for d in runs if k in T[(m,p,d)]]; return statistics.median(r) if r else float('nan')
import statistics
print(f"{'matrix':12} {'prec':6} " + ' '.join(f"{a.split('.')[-1]:>22}" for a, b in pairs) + "  | vs cuSPARSE best: binned tile stream stile stile8")
for m, p in keys:
    cols = []
    for a, b in pairs:
        r = [T[(m, p, d)][b] / T[(m, p, d)][a] for d in runs if a in T[(m, p, d)] and b in T[(m, p, d)]]
        if r: agg[a].extend(r)
        cols.append(' '.join(f"{v:.3f}" for v in r) if r else '-')
    ks=['cuda.csr.binned','cuda.csr.binned_tile','cuda.csr.binned_stream','cuda.csr.binned_stream_tile','cuda.csr.binned_stream_tile8']
    print(f"{m[:12]:12} {p[:6]:6} " + ' '.join(f"{c:>22}" for c in cols) + "  | " + ' '.join(f"{rat(m,p,k):.3f}" for k in ks))
for a, r in agg.items():
    g = math.exp(sum(math.log(v) for v in r) / len(r))
    print(f"{a}: geomean {g:.3f} min {min(r):.3f} max {max(r):.3f} n={len(r)}")
