# PLMIX side of the DIC comparison (docs/mixtures.md): per seed, PLMIX's
# multistart MAP, gibbsPLMIX from it (11,000 iterations, 1,000 burn-in,
# default priors), selectPLMIX; prints D̄, D(MAP) and DIC1.
#   R_LIBS=/path/to/lib Rscript bench/plmix_dic.R ../shared/data/plmix/d_gaming.csv 2 3
suppressMessages(library(PLMIX))
args <- commandArgs(trailingOnly = TRUE)
pi_inv <- as.matrix(read.csv(args[1])); K <- ncol(pi_inv); G <- as.integer(args[2])
for (s in 1:as.integer(args[3])) {
  set.seed(s)
  mp <- mapPLMIX_multistart(pi_inv, K=K, G=G, n_start=5, n_iter=2000)
  g <- gibbsPLMIX(pi_inv, K=K, G=G, init=list(p=mp$mod$P_map, z=binary_group_ind(mp$mod$class_map,G=G)), n_iter=11000, n_burn=1000)
  sel <- selectPLMIX(pi_inv, seq_G=G, MCMCsampleP=list(g$P), MCMCsampleW=list(g$W), MAPestP=list(mp$mod$P_map), MAPestW=list(mp$mod$W_map), deviance=list(g$deviance))
  cat(sprintf("seed %d: Dbar %.3f Dhat %.3f DIC1 %.3f meanmaxW %.4f\n", s, mean(g$deviance), sel$fitting[1,"D_hat"], sel$criteria[1,"DIC1"], mean(apply(g$W,1,max))))
}
