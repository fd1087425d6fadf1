import json,re
D='/work/wt/dia-bm/docs/perf/data/'
BW1,BW2=2830.0,2819.2
def load_json(path,bw,run):
    out={}
    for r in json.load(open(path)):
        p='f64' if r['precision']=='double' else 'f32'
        if r['status']!='ok':
            out[(r['kernel'],p)]=dict(skip=r['note'],run=run); continue
        out[(r['kernel'],p)]=dict(ms=r['median_ms'],gf=r['gflops'],eff=100*r['gbytes_per_s']/bw,own=100*r['own_gbytes_per_s']/bw,note=r['note'],run=run)
    return out
def load_lines(path,bw):
    res={}; cur=None
    for line in open(path):
        if line.startswith('== '): cur=line.split()[1]; res[cur]={}; continue
        m=re.match(r'(float|double) (\S+)\s+([\d.]+) ms\s+([\d.]+) GF eff\s+([\d.]+) own\s+([\d.]+) GB/s x([\d.]+) (.*)',line)
        if m and cur:
            p='f64' if m.group(1)=='double' else 'f32'
            res[cur][(m.group(2),p)]=dict(ms=float(m.group(3)),gf=float(m.group(4)),eff=100*float(m.group(5))/bw,own=100*float(m.group(6))/bw,note=m.group(8),run=2)
    return res
lines=load_lines(D+'dia-bm-run2/m16-summary-lines.txt',BW2)
data={}
for m in ('lap3d27','lap3d7','fem3','banded5'):
    d=load_json(D+f'dia-bm-run1/{m}.json',BW1,1)
    d1=dict(d)
    if m in ('fem3','banded5'):
        d2=load_json(D+f'dia-bm-run2/m16/{m}.json',BW2,2)
    else:
        d2=lines[m]
        # run-2 cuSPARSE best only for SELL known; other cuSPARSE from run 1
    # run 2 wins where present
    bests={}
    for p in ('f32','f64'):
        bests[(p,1)]=min(v['ms'] for (k,pp),v in d1.items() if pp==p and k.startswith('cuda.cusparse') and 'ms' in v)
        bests[(p,2)]=min(v['ms'] for (k,pp),v in d2.items() if pp==p and k.startswith('cuda.cusparse') and 'ms' in v)
    for k,v in d2.items(): d[k]=v
    data[m]=(d,bests)
rename={'cuda.bmsparse.warp_rowlane':'cuda.bmsparse.warp','cuda.bmsparse.warp':'(lane-per-value variant, removed)'}
order=['cuda.dia.sym','cuda.dia','cuda.dia.sym.rows2','cuda.dia.rows2','cuda.bmsparse.warp_rowlane','cuda.bmsparse.warp','cuda.bmsparse.base','cuda.ell.col_major','cuda.hyb','cuda.csr.subwarp','cuda.cusparse.sell','cuda.cusparse.csr','cuda.cusparse.csr_alg2','cuda.cusparse.bsr']
for m,(d,best) in data.items():
    print(f'\n### {m}\n')
    print('| kernel | run | fp64 ms | GFLOPS | eff. % copy | own % copy | × cuSPARSE best | fp32 ms | GFLOPS | eff. % copy | own % copy | × cuSPARSE best | detail |')
    print('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|')
    for k in order:
        cells=[]; runs=set(); note=''
        for p in ('f64','f32'):
            v=d.get((k,p))
            if v is None: cells.append('– | – | – | – | –'); continue
            runs.add(str(v['run']))
            if 'skip' in v: cells.append('skipped | – | – | – | –'); note=v['skip'][:60]; continue
            b=best[(p,v['run'])]
            cells.append(f"{v['ms']:.4f} | {v['gf']:.0f} | {v['eff']:.0f} | {v['own']:.0f} | {b/v['ms']:.2f}" if b else f"{v['ms']:.4f} | {v['gf']:.0f} | {v['eff']:.0f} | {v['own']:.0f} | –")
            if p=='f64': note=v['note'][:70]
        if not runs: continue
        name=rename.get(k,k)
        print(f"| {name} | {','.join(sorted(runs))} | {cells[0]} | {cells[1]} | {note} |")
