"""Compare an R reference fit with plackett's JSON output, parameter by
parameter: the shared report of bench/bradleyterry2_compare.sh and
bench/plackettluce_compare.sh.

    python3 bench/compare_r_fit.py LABEL R_OUTPUT PLACKETT_JSON REFERENCE [PEER]

R_OUTPUT holds "name estimate se" lines, then "loglik value" and
"seconds value" (what the two R scripts print; an se R does not give is
NA, and only the estimate is compared); PLACKETT_JSON is `plackett fit --output json`
(coefficients of a regression, else log-worths relative to REFERENCE,
and log δ_k of the tie prevalences with ties as events);
PEER names the R program in the report (BTm by default).
"""
import json
import math
import sys

label, r_out, pl_json, ref = sys.argv[1:5]
peer = sys.argv[5] if len(sys.argv) > 5 else "BTm"
r = {}
for line in open(r_out):
    t = line.split()
    if t[0] in ("loglik", "seconds"):
        r[t[0]] = (float(t[1]), None)
    else:
        # A reference item's se, and every se of a fit R gives none for, is NA.
        r[" ".join(t[:-2])] = (float(t[-2]), None if t[-1] == "NA" else float(t[-1]))
pl = json.load(open(pl_json))
rows = []
if pl.get("coefficients"):
    for c in pl["coefficients"]:
        rows.append((c["name"], c["estimate"], c["se"]))
else:
    for it in pl["items"]:
        if it["name"] != ref:
            rows.append((it["name"], it["log_worth"], it["log_worth_se"]))
# Tie prevalences of ties as events (PlackettLuce's `tie2`, `tie3`, … are
# log δ_k; plackett reports δ_k and its standard error).
for t in pl.get("tie_parameters") or []:
    rows.append((f"tie{t['order']}", math.log(t["delta"]), t["se"] / t["delta"]))
print(f"-- {label}: log-likelihood {peer} {r['loglik'][0]:.10f}, plackett {pl['log_likelihood']:.10f}")
head = f"{peer} estimate"
print(f"   {'parameter':<24}{head:>18}{'plackett':>18}{'|diff|':>10}{peer + ' se':>14}{'plackett se':>14}{'rel diff':>10}")
worst = [0.0, None]
for name, est, se in rows:
    be, bse = r[name]
    worst[0] = max(worst[0], abs(est - be))
    if bse is None:
        print(f"   {name:<24}{be:>18.12f}{est:>18.12f}{abs(est - be):>10.1e}{'NA':>14}{se:>14.10f}")
        continue
    worst[1] = max(worst[1] or 0.0, abs(se - bse) / bse)
    print(f"   {name:<24}{be:>18.12f}{est:>18.12f}{abs(est - be):>10.1e}{bse:>14.10f}{se:>14.10f}{abs(se - bse) / bse:>10.1e}")
ses = "none given by " + peer if worst[1] is None else f"{worst[1]:.1e}"
print(f"   largest |diff| of the estimates {worst[0]:.1e}, of the standard errors (relative) {ses}; "
      f"{peer} {r['seconds'][0]} s")
