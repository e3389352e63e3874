/* Stable keys for lab result rows.
 *
 * A lab that reads its own results back (ratios, verdicts) finds them by a key of its own, an
 * enum value > 0 unique within the lab, not by the row's display text: a label can then be
 * reworded without a verdict silently losing its row (gd_lab_find_result by group and name
 * would return NULL and the figure would turn into NaN with no error). The key lives in
 * struct gd_lab_result (lab.h) and is never printed, so keys change no output. */
#ifndef GPUDIAG_LAB_KEY_H
#define GPUDIAG_LAB_KEY_H

#include "lab/lab.h"

/* gd_lab_measure, then tags the result it recorded (if it recorded one) with key. */
int gd_lab_measure_key(struct gd_lab_run *r, const struct gd_lab_variant *v, int key);
/* Tags res with key and returns it (res may be NULL: gd_lab_record out of memory). */
struct gd_lab_result *gd_lab_set_key(struct gd_lab_result *res, int key);
/* The first result tagged key (> 0), or NULL. */
struct gd_lab_result *gd_lab_find_key(const struct gd_lab_run *r, int key);
/* Its median time per launch (seconds), NaN when the row is missing or untimed. */
double gd_lab_key_median(const struct gd_lab_run *r, int key);

#endif
