# BradleyTerry2 (Turner & Firth 2012) side by side with plackett: the
# reference fits that bench/bradleyterry2_compare.sh compares against.
# An outside oracle run from Debian's r-cran-bradleyterry2; nothing of it
# is in plackett.
#
#   Rscript bench/bradleyterry2_compare.R export DIR
#       writes the package's citations (Stigler 1994) and flatlizards
#       (Whiting et al. 2006) data as plackett reads them, into DIR (they
#       are not shipped: read from the installed package at run time);
#   Rscript bench/bradleyterry2_compare.R plain PAIRS.csv REFERENCE [tight]
#       Bradley-Terry MLE of pairwise counts (columns: two items, then
#       the first's and the second's wins), abilities relative to REFERENCE;
#   Rscript bench/bradleyterry2_compare.R quasi PAIRS.csv REFERENCE
#       quasi-variances of the abilities by qvcalc, and qvcalc's criterion
#       minimised to a tight tolerance;
#   Rscript bench/bradleyterry2_compare.R covariates PAIRS.csv FEATURES.csv [tight]
#       abilities x'beta from item covariates (FEATURES: item, then one
#       column per covariate), no random effect.
# `tight` runs glm's IRLS to a relative deviance change of 1e-14 instead of
# its default 1e-8, so that the comparison measures the two programs'
# optimum, not where glm stops (on 500 items its default stops 1e-4 away).
#
# Prints "name estimate se" lines, then "loglik value" and "seconds value".
suppressPackageStartupMessages(library(BradleyTerry2))
args <- commandArgs(trailingOnly = TRUE)
mode <- args[1]
control <- if (tail(args, 1) == "tight") glm.control(epsilon = 1e-14, maxit = 100) else glm.control()

pairs_frame <- function(path, levels = NULL) {
  p <- read.csv(path, colClasses = c("character", "character", "numeric", "numeric"))
  names(p) <- c("i", "j", "wi", "wj")
  lv <- if (is.null(levels)) sort(unique(c(p$i, p$j))) else levels
  p$i <- factor(p$i, levels = lv)
  p$j <- factor(p$j, levels = lv)
  p
}

report <- function(fit, t) {
  co <- summary(fit)$coefficients
  for (k in seq_len(nrow(co))) {
    cat(sub("^\\.\\.", "", sub("\\[\\.\\.\\]$", "", rownames(co)[k])),
        format(co[k, 1], digits = 15), format(co[k, 2], digits = 15), "\n")
  }
  cat("loglik", format(as.numeric(logLik(fit)), digits = 15), "\n")
  cat("seconds", format(t[["elapsed"]], digits = 4), "\n")
}

if (mode == "export") {
  dir <- args[2]
  data(citations)
  cb <- countsToBinomial(citations)
  write.csv(data.frame(item_i = cb$player1, item_j = cb$player2, i_wins = cb$win1, j_wins = cb$win2),
            file.path(dir, "citations.csv"), row.names = FALSE, quote = FALSE)
  data(flatlizards)
  vars <- c("throat.PC1", "throat.PC3", "head.length", "SVL")
  lv <- levels(flatlizards$contests$winner)
  stopifnot(identical(lv, levels(flatlizards$contests$loser)))
  ok <- complete.cases(flatlizards$predictors[, vars])
  w <- as.character(flatlizards$contests$winner)
  l <- as.character(flatlizards$contests$loser)
  keep <- w %in% lv[ok] & l %in% lv[ok]
  write.csv(data.frame(item_i = w[keep], item_j = l[keep], i_wins = 1, j_wins = 0),
            file.path(dir, "lizards.csv"), row.names = FALSE, quote = FALSE)
  write.csv(data.frame(item = lv[ok], flatlizards$predictors[ok, vars]),
            file.path(dir, "lizards_features.csv"), row.names = FALSE, quote = FALSE)
} else if (mode == "plain") {
  p <- pairs_frame(args[2])
  t <- system.time(fit <- BTm(cbind(wi, wj), i, j, data = p, refcat = args[3], control = control))
  report(fit, t)
} else if (mode == "covariates") {
  f <- read.csv(args[3], check.names = FALSE, colClasses = c(item = "character"))
  p <- pairs_frame(args[2], levels = f$item)
  pred <- f[, -1, drop = FALSE]
  rownames(pred) <- f$item
  vars <- names(pred)
  form <- as.formula(paste("~", paste0("`", vars, "`[..]", collapse = " + ")))
  t <- system.time(fit <- suppressWarnings(
    BTm(cbind(wi, wj), i, j, form, id = "..", data = list(contests = p, predictors = pred),
        control = control)))
  report(fit, t)
} else if (mode == "quasi") {
  suppressPackageStartupMessages(library(qvcalc))
  p <- pairs_frame(args[2])
  fit <- BTm(cbind(wi, wj), i, j, data = p, refcat = args[3],
             control = glm.control(epsilon = 1e-14, maxit = 100))
  V <- vcov(BTabilities(fit))
  qv <- qvcalc(BTabilities(fit))
  # qvcalc's criterion, the sum over pairs of (log v - log(q_i + q_j))^2,
  # minimised by plain Gauss-Newton to a tight tolerance (qvcalc stops at
  # glm's default 1e-8).
  n <- nrow(V)
  pr <- t(combn(n, 2))
  v <- V[cbind(pr[, 1], pr[, 1])] + V[cbind(pr[, 2], pr[, 2])] - 2 * V[pr]
  L <- matrix(0, nrow(pr), n)
  L[cbind(seq_len(nrow(pr)), pr[, 1])] <- 1
  L[cbind(seq_len(nrow(pr)), pr[, 2])] <- 1
  q <- qv$qvframe$quasiVar
  for (it in 1:100) {
    mu <- drop(L %*% q)
    J <- L / mu
    step <- drop(solve(crossprod(J), crossprod(J, log(v) - log(mu))))
    q <- q + step
    if (max(abs(step)) < 1e-17) break
  }
  cat("qvcalc", format(qv$qvframe$quasiVar, digits = 15), "\n")
  cat("tight", format(q, digits = 15), "\n")
  cat("relerr", format(range(qv$relerrs), digits = 15), "\n")
} else {
  stop("mode: export, plain, covariates or quasi")
}
