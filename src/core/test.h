/* A minimal unit-test harness for the CPU tier: CHECK macros count failures, print the
 * expression and both values, and TEST_DONE() prints "N passed, N failed" and returns the
 * exit status. One test program per module, named <module>_test.c, beside the module. */
#ifndef GPUDIAG_TEST_H
#define GPUDIAG_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int gd_t_pass, gd_t_fail;

#define CHECK(cond)                                                                     \
	do {                                                                            \
		if (cond) {                                                             \
			gd_t_pass++;                                                    \
		} else {                                                                \
			gd_t_fail++;                                                    \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                       \
	} while (0)

#define CHECK_INT(a, b)                                                                 \
	do {                                                                            \
		long long va_ = (long long)(a), vb_ = (long long)(b);                   \
		if (va_ == vb_) {                                                       \
			gd_t_pass++;                                                    \
		} else {                                                                \
			gd_t_fail++;                                                    \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, \
				#a, #b, va_, vb_);                                      \
		}                                                                       \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                           \
	do {                                                                            \
		double va_ = (double)(a), vb_ = (double)(b);                            \
		if (fabs(va_ - vb_) <= (tol)) {                                         \
			gd_t_pass++;                                                    \
		} else {                                                                \
			gd_t_fail++;                                                    \
			fprintf(stderr, "%s:%d: %s ≈ %s failed: %.9g vs %.9g (tol %g)\n", __FILE__, \
				__LINE__, #a, #b, va_, vb_, (double)(tol));             \
		}                                                                       \
	} while (0)

#define CHECK_STR(a, b)                                                                 \
	do {                                                                            \
		const char *sa_ = (a), *sb_ = (b);                                      \
		if (sa_ && sb_ && !strcmp(sa_, sb_)) {                                  \
			gd_t_pass++;                                                    \
		} else {                                                                \
			gd_t_fail++;                                                    \
			fprintf(stderr, "%s:%d: %s == %s failed: '%s' != '%s'\n", __FILE__, __LINE__, \
				#a, #b, sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");    \
		}                                                                       \
	} while (0)

#define TEST_DONE()                                                                     \
	(printf("%d passed, %d failed\n", gd_t_pass, gd_t_fail), gd_t_fail ? 1 : (gd_t_pass ? 0 : 1))

#endif
