/* Integer arithmetic that cannot overflow, for numbers that come from profiles.
 *
 * A profile is a SQLite file from another machine: any int64 can sit in a timestamp and any
 * int in a launch dimension (`sqlite3 p.sqlite "UPDATE kernels SET end = ..."`). The reader
 * drops absurd rows, but the analysis also runs on profiles built in memory and on windows
 * just inside the reader's limits, so it computes every difference of timestamps and every
 * product of dimensions through these helpers: `end - start` on two int64 values is
 * undefined behaviour once the true difference leaves the int64 range (INT64_MAX - INT64_MIN).
 *
 * Where the plain expression does not overflow, each helper returns exactly what it would
 * have: a normal profile's numbers do not change by one bit. */
#ifndef GPUDIAG_SAFE_INT_H
#define GPUDIAG_SAFE_INT_H

#include <limits.h>
#include <stdint.h>

/* hi - lo as a double, for any pair: the difference is taken in uint64 (modular, defined),
 * which is exact for every ordered pair, then converted, so the result equals
 * (double)(hi - lo) whenever that is defined. */
static inline double gd_i64_diff(int64_t hi, int64_t lo)
{
	return hi >= lo ? (double)((uint64_t)hi - (uint64_t)lo) : -(double)((uint64_t)lo - (uint64_t)hi);
}

/* The length of [start, end) in ns as a double; 0 when end < start (a record that ends
 * before it starts has no duration, not a negative one). */
static inline double gd_dur_ns(int64_t start, int64_t end)
{
	return end > start ? (double)((uint64_t)end - (uint64_t)start) : 0;
}

/* a - b and a + b, saturated at the int64 limits. */
static inline int64_t gd_sub_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}
static inline int64_t gd_add_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* The number of blocks of a grid, or of threads of a block: the product of three launch
 * dimensions. 0 when any dimension is not positive (no such launch exists; a product of
 * two negative dimensions must not pass for a real size); saturated at LLONG_MAX. */
static inline long long gd_dim3_count(const int v[3])
{
	long long r = 1;
	for (int i = 0; i < 3; i++) {
		if (v[i] <= 0)
			return 0;
		if (__builtin_mul_overflow(r, (long long)v[i], &r))
			return LLONG_MAX;
	}
	return r;
}

/* A long long clamped into the int range (for counts that are stored as int). */
static inline int gd_ll_to_int_sat(long long v)
{
	return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

#endif
