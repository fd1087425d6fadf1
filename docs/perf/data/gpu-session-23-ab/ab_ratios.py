import csv,sys,collections,math
pairs=[('cuda.csr.binned','cuda.csr.binned_cs'),('cuda.csr.binned','cuda.csr.binned_l2ef'),('cuda.csr.binned_stream','cuda.csr.binned_stream_cs'),('cuda.csr.binned_stream','cuda.csr.binned_stream_l2ef'),('cuda.csr.subwarp','cuda.csr.subwarp_l2ef')]
runs=[]
for f in sys.argv[1:]:
    g=collections.defaultdict(dict)
    for r in csv.DictReader(open(f)):
        try: g[(r['matrix'],r['precision'][0])][r['kernel']]=float(r['gflops'])
        except: pass
    runs.append(g)
keys=sorted(runs[0])
print("%-14s"%"matrix p", " ".join("%9s"%(b.split('.')[-1][-12:]) for a,b in pairs), "  cuS  | best-base/cuS best-variant/cuS")
for k in keys:
    row=[]
    for a,b in pairs:
        vals=[g[k].get(b,0)/g[k][a] for g in runs if g[k].get(a)]
        row.append("/".join("%.3f"%v for v in vals))
    cus=[max(v for kk,v in g[k].items() if 'cusparse' in kk) for g in runs]
    base=[max(g[k].get(a,0) for a in ('cuda.csr.subwarp','cuda.csr.binned','cuda.csr.binned_stream'))/c for g,c in zip(runs,cus)]
    var=[max(g[k].get(b,0) for _,b in pairs)/c for g,c in zip(runs,cus)]
    print("%-14s"%(k[0]+' '+k[1]), " ".join("%9s"%x for x in row), " ".join("%.0f"%c for c in cus), "|", "/".join("%.3f"%x for x in base), "/".join("%.3f"%x for x in var))
for a,b in pairs:
    l=[math.log(g[k][b]/g[k][a]) for g in runs for k in keys if g[k].get(a) and g[k].get(b)]
    print(b, "geomean %.3f  min %.3f max %.3f"%(math.exp(sum(l)/len(l)), math.exp(min(l)), math.exp(max(l))))
