# R's pltree (PlackettLuce 0.3.2, partykit) on a long rankings CSV and a
# covariate CSV, printed as one JSON object: the splits, node sizes, root
# instability tests (sctest) and per-leaf log-worths relative to the first
# item in R's order, total log-likelihood and AIC. Usage:
# Rscript bench/pltree_compare.R RANKINGS.csv RANKER_COL RANKING_COL ITEM_COL RANK_COL
#   COVARIATES.csv KEY_COL MINSIZE MAXDEPTH [FACTOR_COLS [ORDERED_COL=L1,L2,…]]
suppressMessages({library(PlackettLuce); library(strucchange)})
a <- commandArgs(TRUE)
long <- read.csv(a[1], stringsAsFactors = FALSE, check.names = FALSE)
cov <- read.csv(a[6], stringsAsFactors = TRUE, check.names = FALSE)
key <- a[7]
minsize <- as.numeric(a[8]); maxdepth <- as.numeric(a[9])
if (length(a) >= 10 && nzchar(a[10])) for (f in strsplit(a[10], ",")[[1]]) cov[[f]] <- factor(cov[[f]])
if (length(a) >= 11) {
  o <- strsplit(a[11], "=")[[1]]
  cov[[o[1]]] <- factor(as.character(cov[[o[1]]]), levels = strsplit(o[2], ",")[[1]], ordered = TRUE)
}
R <- rankings(long, id = a[3], item = a[4], rank = a[5])
ranking_ranker <- long[[a[2]]][match(rownames(R), as.character(long[[a[3]]]))]
cov <- cov[match(unique(ranking_ranker), as.character(cov[[key]])), ]
idx <- match(ranking_ranker, as.character(cov[[key]]))
ord <- order(idx)
G <- group(R[ord, ], index = idx[ord])
d <- cov[setdiff(names(cov), key)]
d$G <- G
t0 <- proc.time()[["elapsed"]]
tree <- pltree(G ~ ., data = d, minsize = minsize, maxdepth = maxdepth)
secs <- proc.time()[["elapsed"]] - t0
st <- sctest(tree, node = 1)
cf <- coef(tree, log = TRUE)
ids <- partykit::nodeids(tree)
nodes <- lapply(ids, function(i) {
  nd <- tree[[i]]$node
  sp <- partykit::split_node(nd)
  info <- partykit::info_node(nd)
  out <- list(id = i, n = info$nobs, objfun = info$objfun)
  if (!is.null(sp)) {
    v <- names(tree$data)[sp$varid]
    if (!is.null(sp$breaks) && is.ordered(tree$data[[v]])) {
      lv <- levels(tree$data[[v]])
      out$split <- list(variable = v, left = I(lv[seq_len(sp$breaks)]), right = I(lv[-seq_len(sp$breaks)]))
    } else if (!is.null(sp$breaks)) out$split <- list(variable = v, threshold = sp$breaks)
    else {
      lv <- levels(d[[v]])
      out$split <- list(variable = v, left = I(lv[which(sp$index == 1)]), right = I(lv[which(sp$index == 2)]))
    }
  }
  if (is.null(sp)) {
    out$log_worth <- as.list(cf[as.character(i), ])
    qv <- qvcalc(info$object, ref = 1)$qvframe
    out$quasi_se <- as.list(setNames(qv$quasiSE, rownames(qv)))
    out$se <- as.list(setNames(qv$SE, rownames(qv)))
  }
  out
})
res <- list(seconds = secs, nodes = nodes, log_likelihood = as.numeric(logLik(tree)),
            aic = AIC(tree), root_tests = list(variable = colnames(st),
            statistic = unname(st["statistic", ]), p_value = unname(st["p.value", ])))
cat(jsonlite::toJSON(res, auto_unbox = TRUE, digits = 12, pretty = TRUE), "\n")
