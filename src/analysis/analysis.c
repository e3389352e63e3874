/* One profile's analysis: load → summary (→ replays cut, summary again) → ranks → verdicts →
 * tables → framework view (analysis.h). */
#include "analysis/analysis.h"

#include "analysis/replaycut.h"
#include "core/status.h"

#include <stdio.h>
#include <string.h> /* strsignal, sigabbrev_np (_GNU_SOURCE) */

/* The program's own process is the one with a recorded exit status (gd_pw_child writes it
 * for the child `gpudiag run` started; descendants have none); failing that, meta.exit_code. */
static void run_exit(const struct gd_profile *p, struct gd_run_exit *r)
{
	memset(r, 0, sizeof(*r));
	r->processes = p->nproc;
	for (long i = 0; i < p->nproc; i++) {
		const struct gd_pprocess *q = &p->proc[i];
		r->untraced += !q->traced;
		if (!r->known && (q->exit_code >= 0 || q->exit_signal > 0)) {
			r->known = 1;
			r->pid = q->pid;
			r->exit_signal = q->exit_signal > 0 ? q->exit_signal : 0;
			r->exit_code = q->exit_code >= 0 ? q->exit_code : 128 + r->exit_signal;
		}
	}
	if (!r->known && p->exit_code >= 0) {
		r->known = 1;
		r->exit_code = p->exit_code;
		/* a shell-style code above 128 is a signal only when a process row says so */
	}
}

int gd_run_exit_text(const struct gd_run_exit *r, char *buf, size_t n)
{
	char tail[96] = "";
	int failed = r->known && (r->exit_signal > 0 || r->exit_code != 0);
	buf[0] = 0;
	if (!r->known)
		return 0;
	if (r->processes > 1)
		snprintf(tail, sizeof(tail), "; %ld processes in the profile%s", r->processes,
			 r->untraced ? ", some untraced" : "");
	if (r->exit_signal > 0) {
		const char *abbr = sigabbrev_np(r->exit_signal);
		snprintf(buf, n,
			 "the program was killed by signal %d (SIG%s, %s), exit status %d: the profile holds what it "
			 "recorded until then%s",
			 r->exit_signal, abbr ? abbr : "?", strsignal(r->exit_signal), r->exit_code, tail);
	} else if (r->exit_code != 0) {
		snprintf(buf, n, "the program exited with code %d (a failure by its own account)%s", r->exit_code, tail);
	} else {
		snprintf(buf, n, "the program exited normally (code 0)%s", tail);
	}
	return failed;
}

int gd_analysis_of(struct gd_analysis *a) { return gd_analysis_of_nodes(a, NULL, 1); }

/* A --metrics profile: its replays cut out of the timeline (replaycut.h), then summarised
 * again on the cut clock. */
static int cut_replays(struct gd_analysis *a)
{
	struct gd_replay_cut c;
	int rc = gd_replay_cut_find(&a->p, &a->s, &c);
	if (rc != GD_OK || !c.n)
		return rc;
	gd_replay_cut_apply(&a->p, &c);
	gd_summary_free(&a->s);
	rc = gd_summary_compute(&a->p, &a->s);
	if (rc == GD_OK) {
		a->s.replay_cut_ns = (double)c.total_ns;
		a->s.replay_cut_launches = c.launches;
	}
	gd_replay_cut_free(&c);
	return rc;
}

int gd_analysis_of_nodes(struct gd_analysis *a, const struct gd_node *nodes, int nnodes)
{
	int rc;
	memset(&a->t, 0, sizeof(a->t)); /* freed by gd_analysis_free whatever fails below */
	memset(&a->r, 0, sizeof(a->r));
	memset(&a->fw, 0, sizeof(a->fw));
	memset(&a->loop, 0, sizeof(a->loop));
	run_exit(&a->p, &a->run);
	rc = gd_summary_compute(&a->p, &a->s);
	if (rc == GD_OK && a->p.nkl)
		rc = cut_replays(a);
	if (rc == GD_OK)
		rc = gd_ranks_compute(&a->p, nodes, nnodes, &a->r);
	if (rc == GD_OK)
		rc = gd_verdicts_compute_ranks(&a->p, &a->s, &a->r, &a->v);
	if (rc == GD_OK)
		rc = gd_stat_tables_compute(&a->p, &a->t);
	if (rc == GD_OK)
		rc = gd_framework_compute(&a->p, &a->fw);
	if (rc == GD_OK)
		gd_verdicts_add_framework(&a->p, &a->s, &a->fw, &a->v);
	if (rc == GD_OK)
		rc = gd_loop_view_compute(&a->p, &a->s, a->v.loop_found, a->v.loop_first_kernel, a->v.loop_last_kernel,
					  a->v.loop_period, a->v.loop_start, a->v.loop_end, &a->loop);
	if (rc != GD_OK) {
		/* a failed summary may hold some of its arrays; the caller frees only a->p then
		 * (failed tables, a failed framework view and a failed loop view free themselves;
		 * what was computed before is freed here) */
		gd_framework_free(&a->fw);
		gd_stat_tables_free(&a->t);
		gd_summary_free(&a->s);
		gd_ranks_free(&a->r);
		return rc;
	}
	return GD_OK;
}

int gd_analysis_load(const char *path, struct gd_analysis *a, char *why, size_t n)
{
	int rc;
	memset(a, 0, sizeof(*a));
	rc = gd_profile_load(path, &a->p, why, n);
	if (rc != GD_OK)
		return rc;
	rc = gd_analysis_of(a);
	if (rc != GD_OK) {
		gd_profile_free(&a->p);
		snprintf(why, n, "out of memory");
	}
	return rc;
}

void gd_analysis_free(struct gd_analysis *a)
{
	gd_framework_free(&a->fw);
	gd_loop_view_free(&a->loop);
	gd_stat_tables_free(&a->t);
	gd_ranks_free(&a->r);
	gd_summary_free(&a->s);
	gd_profile_free(&a->p);
}
