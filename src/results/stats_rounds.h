/*
 * Two-level statistics of a cell whose reps were taken in rounds spread
 * over the run (docs/method.md §5c): reps within a round share the
 * machine's speed of that moment, rounds sample its drift. Pure functions
 * in stats.c's style: no I/O, unit-tested against hand-computed values.
 */
#ifndef TRACETAX_STATS_ROUNDS_H
#define TRACETAX_STATS_ROUNDS_H

#include <stddef.h>

struct rounds_est {
	size_t n;                 /* values */
	size_t rounds;            /* rounds with at least one value */
	double mean;              /* mean of the round means: each round weighs the same */
	double se;                /* its standard error: sd(round means) / sqrt(rounds) */
	double df;                /* rounds - 1 */
	double ci[2];             /* mean -+ t(df) se */
	double within_var;        /* sigma_w^2: pooled variance within rounds (NaN: no round has 2) */
	double between_var;       /* sigma_b^2: variance of the round levels, ANOVA, >= 0 */
	double between_share;     /* sigma_b^2 / (sigma_b^2 + sigma_w^2) */
};

/*
 * The t interval over round means at @level: x[i] was taken in round
 * round[i] (any ints; rounds need not be sorted or the same size). The
 * round means are the units: whatever the drift between rounds and the
 * noise within them, their spread says how far the mean is from the
 * machine's long-run cost, with rounds - 1 degrees of freedom. With one
 * round there is nothing to say that about: ci and se are NaN (the caller
 * says why). The variance components are the one-way ANOVA's (unbalanced:
 * n0 = (n - sum n_r^2 / n) / (R - 1)), the between one truncated at 0.
 */
void stats_rounds_ci(const double *x, const int *round, size_t n, double level,
		     struct rounds_est *e);

/*
 * Welch's interval at @level of mb - ma, each side a mean with its
 * standard error and degrees of freedom (the round means' of a run), the
 * Welch-Satterthwaite df and the two-sided p of the same t. NaN where a
 * side's se is not finite.
 */
void stats_welch_diff(double ma, double sea, double dfa, double mb, double seb, double dfb,
		      double level, double ci[2], double *p, double *df);

/*
 * The repeat interval (docs/method.md §5c, "The repeat interval"): where
 * the mean of a rerun of the same plan on this host should land, at
 * @level. A run's mean @m has standard error @se (@df degrees of freedom,
 * the t over round means'); a rerun's mean has its own, and each run's
 * level moves with the host's speed between runs by a relative @tau2
 * (variance, relative to the mean). So the difference of two runs' means
 * has variance 2 se^2 + 2 tau2 m^2, and the interval is
 * m -+ t(df') sqrt(2 se^2 + 2 tau2 m^2), df' the Welch-Satterthwaite
 * combination of @df and @tau_df, the df of the @tau2 estimate (runs - 1;
 * INFINITY: known; NaN or <= 0: not given, df' = df). NaN where se or df
 * is not.
 */
void stats_repeat_pi(double m, double se, double df, double tau2, double tau_df, double level,
		     double pi[2]);

/* One cell of one earlier run, for stats_repeat_tau2(). */
struct repeat_obs {
	int group;                /* the cell: tracer, workload, threads, target */
	long long run;            /* the run it came from */
	double mean, se;          /* its overhead's mean and standard error */
	int aa;                   /* an A/A cell: no cost for a drift to scale */
};

/*
 * The relative between-run drift variance tau^2 from earlier runs' cells,
 * as scripts/study/drift.py computes it: per group of K >= 2 runs with
 * mean of means mb, not A/A and |mb| >= 4 mean(se), the excess
 * var(m_k / mb) - mean((se_k / mb)^2), pooled over the groups weighted by
 * K - 1, truncated at 0; or, when larger, the shift all of a run's
 * qualifying cells share: the variance over runs of mean(m / mb) less its
 * sampling variance mean((se / mb)^2) / cells, truncated at 0. 0 when no
 * group qualifies. *cells: the groups pooled; *runs: the runs that gave a
 * cell to them (tau^2's df are *runs - 1; 0 when *cells is). @o is sorted
 * in place.
 */
double stats_repeat_tau2(struct repeat_obs *o, size_t n, int *cells, int *runs);

#endif
