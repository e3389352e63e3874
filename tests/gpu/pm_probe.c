/* What the GPU-metrics sampler (src/gpu/pmsample.c) sees on this machine, without the rest
 * of `gpudiag run`: gpudiag_pm_probe INTERVAL_US CMD [ARGS...] samples every GPU while CMD
 * runs, then prints the status, the metrics in use, the note, the samples lost, and every
 * sample as a TSV row (device, start, end, one column per quantity). GPU tier only. */
#include "gpu/pmsample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char why[256] = "";
	if (argc < 3) {
		fprintf(stderr, "usage: gpudiag_pm_probe INTERVAL_US CMD [ARGS...]\n");
		return 2;
	}
	struct gd_pm *pm = gd_pm_start(64, atol(argv[1]) * 1000L, why, sizeof(why));
	if (!pm) {
		fprintf(stderr, "pm_probe: %s\n", why);
		return 1;
	}
	sleep(1); /* set-up before the work, so the work is sampled whole */
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	gd_pm_stop(pm);
	printf("# status: %s\n# metrics: %s\n# note: %s\n# lost: %lld\n# samples: %ld\n", gd_pm_status(pm),
	       gd_pm_metric_names(pm), gd_pm_note(pm), gd_pm_lost(pm), gd_pm_count(pm));
	printf("device\tt_start\tt_end");
	for (int q = 0; q < GD_PM_COUNT; q++)
		printf("\t%s", gd_pm_metrics[q].column);
	printf("\n");
	for (long i = 0; i < gd_pm_count(pm); i++) {
		const struct gd_pm_sample *s = gd_pm_get(pm, i);
		printf("%d\t%lld\t%lld", s->device, (long long)s->t_start, (long long)s->t_end);
		for (int q = 0; q < GD_PM_COUNT; q++)
			printf(isnan(s->v[q]) ? "\t" : "\t%.4g", s->v[q]);
		printf("\n");
	}
	gd_pm_free(pm);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
