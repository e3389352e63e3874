/* The steady part of a device's PM samples (pm_steady.h says what and why). */
#include "analysis/pm_steady.h"

#include <math.h>

static double act(const struct gd_pm_sample *x, int gr)
{
	double v = gr ? x->v[GD_PM_GR_ACTIVE] : x->v[GD_PM_SM_ACTIVE];
	v /= 100.0;
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* A sample's weight: its length, 0 when it carries no SM activity (nothing to judge) */
static double len(const struct gd_pm_sample *x)
{
	return x->t_end > x->t_start && isfinite(x->v[GD_PM_SM_ACTIVE]) ? (double)(x->t_end - x->t_start) : 0;
}

/* The best split of [a, b] (duration-weighted least squares: the split maximising the
 * variance between the two means); its share of the total variance in *r2, the first sample
 * after it returned (-1: no split with GD_PM_STEP_MIN samples each side, or no variance). The
 * after must be the busier: a busy stretch followed by a quiet one is not start-up. */
static long best_step(const struct gd_pm_sample *pm, long a, long b, int gr, double *r2)
{
	double W = 0, S = 0, S2 = 0, w1 = 0, s1 = 0, best = 0;
	long at = -1;
	for (long i = a; i <= b; i++) {
		double w = len(&pm[i]), v = w > 0 ? act(&pm[i], gr) : 0;
		W += w, S += w * v, S2 += w * v * v;
	}
	double total = S2 - S * S / W; /* W · variance */
	*r2 = NAN;
	if (!(W > 0) || !(total > 0))
		return -1;
	for (long k = a + 1; k <= b; k++) {
		double w = len(&pm[k - 1]);
		w1 += w, s1 += w > 0 ? w * act(&pm[k - 1], gr) : 0;
		if (k - a < GD_PM_STEP_MIN || b + 1 - k < GD_PM_STEP_MIN || !(w1 > 0) || !(W - w1 > 0))
			continue;
		double m1 = s1 / w1, m2 = (S - s1) / (W - w1);
		double between = w1 * (W - w1) / W * (m1 - m2) * (m1 - m2);
		if (m2 > m1 && between > best)
			best = between, at = k;
	}
	if (at >= 0)
		*r2 = best / total;
	return at;
}

int gd_pm_window(const struct gd_pm_sample *pm, long lo, long hi, struct gd_pm_window *w)
{
	int any = 0;
	*w = (struct gd_pm_window){.device = hi > lo ? pm[lo].device : 0, .first = -1, .last = -1, .start = -1,
				   .warm_busy = NAN, .step_r2 = NAN, .busy = NAN, .sm_busy = NAN};
	/* work: the SMs at work; where they never were, the engine (grids of a block or two keep
	 * it busy with SM active far below the line). Not the engine always: it shows isolated
	 * samples above the line while the GPU has nothing to do (on the H200, 2-4 per 250 ms
	 * during a program's CPU-side set-up), which would open the span seconds early. */
	for (int m = 0; m < 2 && w->first < 0; m++)
		for (long i = lo; i < hi; i++) {
			double v = pm[i].v[m ? GD_PM_GR_ACTIVE : GD_PM_SM_ACTIVE];
			any |= isfinite(pm[i].v[GD_PM_SM_ACTIVE]);
			if (v >= GD_PM_WORK_PCT && len(&pm[i]) > 0) {
				if (w->first < 0)
					w->first = i;
				w->last = i;
			}
		}
	if (w->first < 0)
		return any ? 0 : -1;
	/* samples without SM activity inside the span carry nothing: they are skipped below and
	 * make the span read from SM active only where GR is missing too */
	w->gr = 1;
	for (long i = w->first; i <= w->last; i++)
		if (isfinite(pm[i].v[GD_PM_SM_ACTIVE]) && !isfinite(pm[i].v[GD_PM_GR_ACTIVE]))
			w->gr = 0;
	w->start = w->first;
	for (int s = 0; s < GD_PM_MAX_STEPS; s++) {
		double r2;
		long k = best_step(pm, w->start, w->last, w->gr, &r2);
		if (k < 0 || !(r2 >= GD_PM_STEP_R2))
			break;
		w->start = k, w->steps++, w->step_r2 = r2;
	}
	double sum = 0, smsum = 0, wsum = 0, wsum_warm = 0, sum_warm = 0;
	for (long i = w->first; i <= w->last; i++) {
		double d = len(&pm[i]);
		if (!(d > 0))
			continue;
		if (i < w->start) {
			wsum_warm += d, sum_warm += act(&pm[i], w->gr) * d;
			continue;
		}
		sum += act(&pm[i], w->gr) * d;
		smsum += act(&pm[i], 0) * d;
		wsum += d;
		w->n++;
		w->nidle += pm[i].v[GD_PM_SM_ACTIVE] < GD_PM_WORK_PCT;
	}
	w->span_ns = wsum;
	if (wsum > 0)
		w->busy = sum / wsum, w->sm_busy = smsum / wsum;
	if (w->steps) {
		w->warm_ns = (double)(pm[w->start].t_start - pm[w->first].t_start);
		w->warm_busy = wsum_warm > 0 ? sum_warm / wsum_warm : NAN;
	}
	return 0;
}
