#!/usr/bin/env python3
"""Independent reference for the PL-mixture posterior mean deviance D̄
(docs/mixtures.md, "DIC against PLMIX"): adaptive random-walk Metropolis on
the posterior of a G-component Plackett–Luce mixture (Mollica & Tardella
2017) under PLMIX's default priors — Gamma(1, 0.001) on every worth,
Dirichlet(1) on the weights — written from the model's definition with
numpy only, sharing no code with plackett or PLMIX.

Data: PLMIX's orderings layout (Rank_1 … Rank_K, 1-based item at each
rank, 0 after the listed ones; top-k rows use the top-k likelihood).

    python bench/mixture_dic_mh.py ../shared/data/plmix/d_gaming.csv 2 400000 1

prints D̄ over the second half of the run with a batch-means standard
error. Compare 2·D̄ − D(MAP) with plackett's DIC and PLMIX's DIC1.
"""
import sys

import numpy as np
X = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1, dtype=int) - 1
G = int(sys.argv[2]); n_iter = int(sys.argv[3]); seed = int(sys.argv[4])
b = 0.001
N, K = X.shape
# Top-k rows: complete each with its unranked items (any order) and count
# only the ranked stages (the PL top-k likelihood).
kk = (X >= 0).sum(1)
full = []
for row in X:
    r = [i for i in row if i >= 0]
    full.append(r + [i for i in range(K) if i not in r])
X = np.array(full)
mask = (np.arange(K)[None, :] < np.minimum(kk, K - 1)[:, None]).astype(float)
rng = np.random.default_rng(seed)
def loglik_obs(theta):
    # theta: G*K log-worths + G log-u
    lw = theta[:G*K].reshape(G, K)
    lu = theta[G*K:]
    lomega = lu - np.logaddexp.reduce(lu)
    L = lw[:, X]  # G,N,K
    # PL: sum_j L_j - log sum_{l>=j} exp L_l
    rev = np.logaddexp.accumulate(L[:, :, ::-1], axis=2)[:, :, ::-1]
    lp = ((L - rev) * mask[None]).sum(axis=2)  # G,N
    return np.logaddexp.reduce(lp + lomega[:, None], axis=0).sum()
def logpost(theta):
    lw = theta[:G*K]; lu = theta[G*K:]
    # Gamma(1,b) on lambda=exp(lw): density in log space: lw - b*exp(lw)
    # Gamma(1,1) on u
    return loglik_obs(theta) + (lw - b*np.exp(lw)).sum() + (lu - np.exp(lu)).sum()
D = G*K + G
theta = np.zeros(D); theta[:G*K] = rng.normal(0, .3, G*K) + np.log(1/b) - 1
lp = logpost(theta)
cov = np.eye(D) * 0.01; mean = theta.copy(); M2 = np.zeros((D, D)); cnt = 0
devs = []; acc = 0
for t in range(n_iter):
    if t < 2000:
        prop = theta + rng.normal(0, 0.05, D)
    else:
        prop = theta + rng.multivariate_normal(np.zeros(D), cov * 2.38**2 / D) if t % 1 == 0 else theta
    lpp = logpost(prop)
    if np.log(rng.random()) < lpp - lp:
        theta, lp = prop, lpp; acc += 1
    # adapt during first half
    if t < n_iter // 2:
        cnt += 1; d = theta - mean; mean += d / cnt; M2 += np.outer(d, theta - mean)
        if t >= 2000 and t % 500 == 0:
            cov = M2 / (cnt - 1) + 1e-8 * np.eye(D)
    else:
        devs.append(-2 * loglik_obs(theta))
devs = np.array(devs)
# batch-means SE
B = 50; bm = devs[: len(devs)//B*B].reshape(B, -1).mean(1)
print(f"G={G} seed={seed} Dbar={devs.mean():.3f} se={bm.std(ddof=1)/np.sqrt(B):.3f} acc={acc/n_iter:.3f} minD={devs.min():.3f}")
