/* CPU-tier tests of the lab harness: statistics and accounting, the checks (poison,
 * tolerance), number conversions, ceilings, the lab table and the renderers. */
#include "core/out.h"
#include "core/status.h"
#include "core/test.h"
#include "kernels/lab_precision.h"
#include "lab/lab.h"
#include "roofline/ceilings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct gd_lab fake = {"fake", "§0", "a fake lab", "", NULL, NULL, 0, 0, 0, NULL};

static int dummy_launch(void *arg, long iter, char *why, size_t n)
{
	return GD_OK;
}

static void test_record(void)
{
	struct gd_lab_run r;
	struct gd_lab_variant v = {0};
	struct gd_lab_result *res;
	double s[10] = {5e-3, 1e-3, 2e-3, 4e-3, 3e-3, 3e-3, 2e-3, 4e-3, 6e-3, 3e-3};
	gd_lab_run_init(&r, &fake);
	r.dev.mem_clock_khz = 3201000;
	r.dev.bus_width_bits = 6016;
	CHECK_NEAR(gd_lab_datasheet_dram(&r.dev), 4.815e12, 1e9); /* the H200's 4.8 TB/s */
	v.group = "g";
	v.name = "copy";
	v.x = 7;
	v.bytes = 6e9;
	v.flops = 3e9;
	v.roof = GD_ROOF_DRAM_COPY;
	v.launch = dummy_launch;
	v.metrics[0] = (struct gd_lab_metric){"k", 2.5, "u"};
	v.nmetrics = 1;
	res = gd_lab_record(&r, &v, s, 10, NULL);
	CHECK(res != NULL);
	CHECK_NEAR(res->t_median, 3e-3, 1e-12);
	CHECK_NEAR(res->t_min, 1e-3, 1e-12);
	CHECK_NEAR(res->t_max, 6e-3, 1e-12);
	CHECK_NEAR(res->gbps, 2000, 1e-6);   /* 6e9 B / 3 ms */
	CHECK_NEAR(res->gflops, 1000, 1e-6); /* 3e9 FLOP / 3 ms */
	CHECK_STR(res->ceiling.source, "datasheet");
	CHECK_NEAR(res->pct_of_ceiling, 2e12 / 4.815e12, 1e-3);
	CHECK_INT(res->nmetrics, 1);
	CHECK_STR(res->metric_keys[0], "k");
	gd_lab_result_metric(res, "k", 3.5, "u"); /* replaces */
	gd_lab_result_metric(res, "j", 1, "");
	CHECK_INT(res->nmetrics, 2);
	CHECK_NEAR(res->metric_values[0], 3.5, 0);
	CHECK(gd_lab_find_result(&r, "g", "copy") == res);
	CHECK(gd_lab_find_result(&r, "g", "nope") == NULL);
	CHECK_INT(r.check_failed, 0);

	/* long names: lab streams' group (72 bytes) was cut to 63 when recorded and then never
	 * found, so its concurrency metrics were lost (run 1 on the H200: "nan×"). It must be
	 * stored whole, and a name longer than the field must still be found, cut at a UTF-8
	 * character boundary (here inside a run of 2-byte "§") */
	{
		const char *g1 = "default-stream trap: A and B on < half the SMs each, norm(out_a) between";
		char longg[300];
		struct gd_lab_variant lv = v;
		struct gd_lab_result *a, *b;
		size_t o = (size_t)snprintf(longg, sizeof(longg), "x");
		while (o + 2 < sizeof(longg))
			o += (size_t)snprintf(longg + o, sizeof(longg) - o, "§");
		lv.group = g1;
		lv.name = "good: non-blocking streams";
		a = gd_lab_record(&r, &lv, s, 10, NULL);
		CHECK(a != NULL);
		CHECK_STR(a->group, g1);
		lv.group = longg;
		b = gd_lab_record(&r, &lv, s, 10, NULL);
		CHECK(b != NULL);
		CHECK(strlen(b->group) < sizeof(b->group) && strlen(b->group) % 2 == 1); /* "x" + whole "§"s */
		CHECK(strncmp(b->group, longg, strlen(b->group)) == 0);
		a = (struct gd_lab_result *)gd_lab_find_result(&r, g1, "good: non-blocking streams");
		CHECK(a != NULL && !strcmp(a->group, g1));
		CHECK(gd_lab_find_result(&r, longg, "good: non-blocking streams") == b);
		CHECK(gd_lab_find_result(&r, "default-stream trap: A and B on < half the SMs each, norm(out_a",
					 "good: non-blocking streams") == NULL);
	}

	/* untimed: NaN figures; a failed check marks the run */
	{
		struct gd_lab_check c = {0};
		c.done = 1;
		c.ok = 0;
		res = gd_lab_record(&r, &v, NULL, 0, &c);
		CHECK(isnan(res->t_median) && isnan(res->gbps) && isnan(res->pct_of_ceiling));
		CHECK_INT(r.check_failed, 1);
	}
	/* a measured ceiling wins over the datasheet */
	{
		struct gd_ceilings *m = calloc(1, sizeof(*m));
		gd_ceilings_clear(m);
		m->dram_copy = 4e12;
		r.ceilings = m;
		r.has_measured = 1;
		res = gd_lab_record(&r, &v, s, 10, NULL);
		CHECK_STR(res->ceiling.source, "measured");
		CHECK_NEAR(res->pct_of_ceiling, 0.5, 1e-12);
		/* not measured: L2 has no datasheet figure either */
		v.roof = GD_ROOF_L2;
		res = gd_lab_record(&r, &v, s, 10, NULL);
		CHECK_STR(res->ceiling.source, "unknown");
		CHECK(isnan(res->pct_of_ceiling));
	}
	gd_lab_run_free(&r);
}

/* the GPUDIAG_LAB_INJECT_FAULT matching (tests/gpu/labmem.sh): run 1's "stride 4 " also hit
 * the permute variant, whose name says "read stride 4 KB"; "stride 4 (" names one variant */
static void test_fault_matches(void)
{
	const char *s4 = "stride 4 (16 B apart)", *perm = "2·x on x.permute(0,2,1) (read stride 4 KB)",
		   *pad = "shared-memory tile 32×33 (padded)", *tile = "shared-memory tile 32×32";
	CHECK(gd_lab_fault_matches("stride 4 ", s4) && gd_lab_fault_matches("stride 4 ", perm));
	CHECK(gd_lab_fault_matches("stride 4 (|padded", s4));
	CHECK(!gd_lab_fault_matches("stride 4 (|padded", perm));
	CHECK(gd_lab_fault_matches("stride 4 (|padded", pad));
	CHECK(!gd_lab_fault_matches("stride 4 (|padded", tile));
	CHECK(!gd_lab_fault_matches("stride 40 (", s4));
	CHECK(!gd_lab_fault_matches("", s4) && !gd_lab_fault_matches("|", s4));
	CHECK(gd_lab_fault_matches("|padded|", pad)); /* empty parts are skipped */
}

static void test_cmp(void)
{
	float got[6] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
	double ref[6] = {1, 2, 3, 4, 5, 6};
	struct gd_lab_check c;
	double atol, rtol;

	memset(&c, 0, sizeof(c));
	gd_lab_cmp(got, ref, 6, GD_DT_F32, 0, 0, &c);
	CHECK(c.done && c.ok);
	CHECK_INT(c.checked, 6);
	CHECK_INT(c.bad, 0);
	CHECK_INT(c.first_bad, -1);

	/* poison left in element 4: unwritten, failing, found at its index */
	memset(&got[4], GD_LAB_POISON, sizeof(float));
	memset(&c, 0, sizeof(c));
	gd_lab_cmp(got, ref, 6, GD_DT_F32, 1e9, 1e9, &c); /* even a huge tolerance does not hide it */
	CHECK(!c.ok);
	CHECK_INT(c.unwritten, 1);
	CHECK_INT(c.bad, 1);
	CHECK_INT(c.first_bad, 4);
	got[4] = 5.0f;

	/* tolerance edges: |got - ref| <= atol + rtol·|ref| */
	got[1] = 2.0f + 1e-3f;
	memset(&c, 0, sizeof(c));
	gd_lab_cmp(got, ref, 6, GD_DT_F32, 0, 1e-3, &c); /* allowed 2e-3 */
	CHECK(c.ok);
	CHECK_NEAR(c.max_abs_err, 1e-3, 1e-7);
	memset(&c, 0, sizeof(c));
	gd_lab_cmp(got, ref, 6, GD_DT_F32, 0, 1e-4, &c);
	CHECK(!c.ok);
	CHECK_INT(c.first_bad, 1);
	got[1] = NAN; /* a NaN that is not the poison pattern is still wrong */
	memset(&c, 0, sizeof(c));
	gd_lab_cmp(got, ref, 6, GD_DT_F32, 1, 1, &c);
	CHECK(!c.ok);
	CHECK_INT(c.unwritten, 0);
	got[1] = 2.0f;

	/* accumulating over two calls keeps global indices */
	memset(&c, 0, sizeof(c));
	gd_lab_cmp(got, ref, 3, GD_DT_F32, 0, 0, &c);
	got[5] = 7;
	gd_lab_cmp(got + 3, ref + 3, 3, GD_DT_F32, 0, 0, &c);
	CHECK_INT(c.checked, 6);
	CHECK_INT(c.first_bad, 5);
	CHECK(!c.ok);

	/* an empty comparison is not a pass */
	memset(&c, 0, sizeof(c));
	gd_lab_cmp(got, ref, 0, GD_DT_F32, 0, 0, &c);
	CHECK(!c.ok);

	/* u32 */
	{
		uint32_t g[3] = {1, 0xffffffffu, 3}, w[3] = {1, 2, 4};
		memset(&c, 0, sizeof(c));
		gd_lab_cmp_u32(g, w, 3, &c);
		CHECK_INT(c.bad, 2);
		CHECK_INT(c.unwritten, 1);
		CHECK_INT(c.first_bad, 1);
	}
	/* FP16 poison is 0xFFFF; BF16 and e4m3 likewise all-ones */
	{
		uint16_t h[2] = {gd_f32_to_f16(1.5f), 0xffff};
		double r2[2] = {1.5, 0};
		memset(&c, 0, sizeof(c));
		gd_lab_cmp(h, r2, 2, GD_DT_F16, 0, 0, &c);
		CHECK_INT(c.unwritten, 1);
		CHECK_INT(c.bad, 1);
	}
	gd_lab_tolerance(GD_DT_F16, &atol, &rtol);
	CHECK_NEAR(rtol, 1.0 / 1024, 0);
	gd_lab_tolerance(GD_DT_BF16, &atol, &rtol);
	CHECK_NEAR(rtol, 1.0 / 128, 0);
	gd_lab_tolerance(GD_DT_FP8E4M3, &atol, &rtol);
	CHECK_NEAR(rtol, 1.0 / 8, 0);
	gd_lab_tolerance(GD_DT_U32, &atol, &rtol);
	CHECK(rtol == 0 && atol == 0);
}

static double ref_sq(const void *ctx, size_t i)
{
	return (double)i * (double)i;
}

static void test_cmp_fn(void)
{
	size_t n = 10000;
	float *g = malloc(n * sizeof(float));
	struct gd_lab_check c;
	for (size_t i = 0; i < n; i++)
		g[i] = (float)((double)i * (double)i);
	memset(&c, 0, sizeof(c));
	gd_lab_cmp_fn(g, n, GD_DT_F32, ref_sq, NULL, 0, ldexp(1, -23), &c);
	CHECK(c.ok);
	CHECK_INT(c.checked, (long long)n);
	g[9000] = 1;
	memset(&c, 0, sizeof(c));
	gd_lab_cmp_fn(g, n, GD_DT_F32, ref_sq, NULL, 0, ldexp(1, -23), &c);
	CHECK_INT(c.first_bad, 9000); /* beyond the first 4096-element chunk */
	free(g);
}

static void test_conversions(void)
{
	int bad = 0;
	CHECK_INT(gd_f32_to_f16(1.0f), 0x3c00);
	CHECK_INT(gd_f32_to_f16(65504.0f), 0x7bff);
	CHECK_INT(gd_f32_to_f16(1e6f), 0x7c00);			     /* overflow → inf */
	CHECK_INT(gd_f32_to_f16(1.0f + ldexpf(1, -11)), 0x3c00);     /* tie → even */
	CHECK_INT(gd_f32_to_f16(1.0f + 3 * ldexpf(1, -11)), 0x3c02); /* tie → even (up) */
	CHECK_INT(gd_f32_to_f16(ldexpf(1, -24)), 0x0001);	     /* smallest subnormal */
	CHECK_INT(gd_f32_to_f16(-2.0f), 0xc000);
	CHECK_NEAR(gd_f16_to_f32(0x3555), 0.333251953125, 0);
	for (unsigned h = 0; h < 0x10000; h++) { /* every finite FP16 survives a round trip */
		if ((h & 0x7c00) == 0x7c00)
			continue;
		bad += gd_f32_to_f16(gd_f16_to_f32((uint16_t)h)) != h;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(gd_f32_to_bf16(1.0f), 0x3f80);
	{
		float t1, t2;
		uint32_t u1 = 0x3f808000u, u2 = 0x3f818000u;
		memcpy(&t1, &u1, 4);
		memcpy(&t2, &u2, 4);
		CHECK_INT(gd_f32_to_bf16(t1), 0x3f80); /* tie → even */
		CHECK_INT(gd_f32_to_bf16(t2), 0x3f82);
	}
	bad = 0;
	for (unsigned h = 0; h < 0x10000; h++) {
		if ((h & 0x7f80) == 0x7f80)
			continue;
		bad += gd_f32_to_bf16(gd_bf16_to_f32((uint16_t)h)) != h;
	}
	CHECK_INT(bad, 0);
	/* e4m3 (CUDA's __nv_fp8_e4m3, saturating) */
	CHECK_INT(gd_f32_to_e4m3(1.0f), 0x38);
	CHECK_INT(gd_f32_to_e4m3(-1.0f), 0xb8);
	CHECK_INT(gd_f32_to_e4m3(448.0f), 0x7e);
	CHECK_INT(gd_f32_to_e4m3(1e6f), 0x7e);
	CHECK_INT(gd_f32_to_e4m3(-1e6f), 0xfe);
	CHECK_INT(gd_f32_to_e4m3(ldexpf(1, -9)), 0x01);
	CHECK_INT(gd_f32_to_e4m3(ldexpf(1, -11)), 0x00); /* below half the smallest subnormal */
	CHECK_INT(gd_f32_to_e4m3(1.0625f), 0x38);	 /* tie between 1 and 1.125 → even */
	CHECK_INT(gd_f32_to_e4m3(1.1875f), 0x3a);	 /* tie between 1.125 and 1.25 → even */
	CHECK_INT(gd_f32_to_e4m3(0.0f), 0x00);
	CHECK(isnan(gd_e4m3_to_f32(0x7f)));
	CHECK_NEAR(gd_e4m3_to_f32(0x7e), 448, 0);
	CHECK_NEAR(gd_e4m3_to_f32(0x08), 0.015625, 0);
	bad = 0;
	for (unsigned v = 0; v < 256; v++) {
		if ((v & 0x7f) == 0x7f || v == 0x80)
			continue;
		bad += gd_f32_to_e4m3(gd_e4m3_to_f32((uint8_t)v)) != v;
	}
	CHECK_INT(bad, 0);
	{
		float a[2] = {1.5f, -2.0f};
		CHECK_NEAR(gd_lab_get(a, 1, GD_DT_F32), -2.0, 0);
	}
	CHECK_INT(gd_lab_dtype_size(GD_DT_FP8E4M3), 1);
	CHECK_INT(gd_lab_dtype_size(GD_DT_BF16), 2);
	CHECK_STR(gd_lab_dtype_name(GD_DT_BF16), "BF16");
}

/* The C conversions the CPU references use agree bit for bit with CUDA's own (host-side)
 * __float2half_rn, __float2bfloat16_rn and __nv_cvt_float_to_fp8(SATFINITE, E4M3), on random
 * bit patterns, small magnitudes (subnormals, ties) and ordinary values. */
static void test_conversions_vs_cuda(void)
{
	uint64_t st = 99;
	long bad16 = 0, badbf = 0, bad8 = 0, bad8d = 0, n = 0;
	for (long i = 0; i < 3000000; i++) {
		uint32_t u = (uint32_t)gd_lab_rand_u64(&st);
		float f;
		memcpy(&f, &u, 4);
		if (i % 3 == 1)
			f = ldexpf((float)gd_lab_rand_uniform(&st, -1, 1),
				   (int)(gd_lab_rand_u64(&st) % 44) - 32);
		else if (i % 3 == 2)
			f = (float)(int)(gd_lab_rand_u64(&st) % 2000000 - 1000000) / 1024.0f;
		if (isnan(f))
			continue;
		n++;
		bad16 += gd_f32_to_f16(f) != gd_labk_cvt_host(GD_LABK_F16, f);
		badbf += gd_f32_to_bf16(f) != gd_labk_cvt_host(GD_LABK_BF16, f);
		bad8 += gd_f32_to_e4m3(f) != gd_labk_cvt_host(GD_LABK_E4M3, f);
	}
	for (int v = 0; v < 256; v++) {
		float a = gd_e4m3_to_f32((uint8_t)v), b = gd_labk_e4m3_to_f32_host((unsigned char)v);
		bad8d += !(a == b || (isnan(a) && isnan(b)));
	}
	CHECK(n > 2900000);
	CHECK_INT(bad16, 0);
	CHECK_INT(badbf, 0);
	CHECK_INT(bad8, 0);
	CHECK_INT(bad8d, 0);
}

static void test_random(void)
{
	uint64_t s1 = 42, s2 = 42;
	float a[1000];
	int in_range = 1;
	double mean = 0;
	CHECK(gd_lab_rand_u64(&s1) == gd_lab_rand_u64(&s2)); /* reproducible */
	gd_lab_rand_fill(a, 1000, GD_DT_F32, -2, 2, &s1);
	for (int i = 0; i < 1000; i++) {
		in_range &= a[i] >= -2 && a[i] < 2;
		mean += a[i] / 1000;
	}
	CHECK(in_range);
	CHECK(fabs(mean) < 0.2);
	CHECK(a[0] != a[1]);
}

static void test_table(void)
{
	int n = 0;
	for (int i = 0; gd_labs[i]; i++) {
		n++;
		CHECK(gd_labs[i]->run != NULL);
		CHECK(gd_labs[i]->summary && gd_labs[i]->summary[0]);
		CHECK(gd_lab_find(gd_labs[i]->name) == gd_labs[i]);
		for (int k = 0; k < i; k++)
			CHECK(strcmp(gd_labs[i]->name, gd_labs[k]->name));
	}
	CHECK(n >= 3);
	CHECK(gd_lab_find("memory") && gd_lab_find("coalescing") && gd_lab_find("precision"));
	CHECK(gd_lab_find("nope") == NULL);
}

/* A run with two groups, a failed check and metrics, for the renderers. */
static void sample_run(struct gd_lab_run *r)
{
	struct gd_lab_variant v = {0};
	struct gd_lab_check c = {0};
	double s[10];
	gd_lab_run_init(r, &fake);
	r->dev.mem_clock_khz = 3201000;
	r->dev.bus_width_bits = 6016;
	for (int k = 0; k < 4; k++) {
		char name[32];
		for (int i = 0; i < 10; i++)
			s[i] = (1 + k) * 1e-3 * (i == 0 ? 0.9 : i == 9 ? 1.1 : 1.0);
		snprintf(name, sizeof(name), "stride %d", 1 << k);
		v.group = "sweep, \"quoted\"";
		v.name = name;
		v.x = 1 << k;
		v.bytes = 1e9;
		v.roof = GD_ROOF_DRAM_READ;
		v.formula = "N·4, read";
		v.metrics[0] = (struct gd_lab_metric){"sector_bytes_per_useful_byte", (double)(1 << k), "×"};
		v.nmetrics = 1;
		c.done = c.ok = 1;
		c.checked = 100;
		gd_lab_record(r, &v, s, 10, &c);
	}
	v.group = "other";
	v.name = "broken <variant>";
	v.x = NAN;
	v.nmetrics = 0;
	c.ok = 0;
	c.bad = 3;
	c.unwritten = 2;
	gd_lab_record(r, &v, NULL, 0, &c);
	gd_lab_verdict(r, "§7", "stride %d is %.1f× slower", 8, 8.0);
	gd_lab_note(r, "a note");
	{
		struct gd_lab_chart ch = {"Chart & title",	 "stride", "GB/s", 1, 1, GD_LAB_Y_GBPS, NULL,
					  {"sweep, \"quoted\""}, 1,	   1};
		gd_lab_set_chart(r, &ch);
	}
}

static char *render(const struct gd_lab_run *r, int kind, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (kind == 0)
		gd_lab_print_table(r, f);
	else if (kind == 1)
		gd_lab_write_json(r, f);
	else if (kind == 2)
		gd_lab_write_csv(r, f);
	else
		*ret = gd_lab_write_svg(r, f);
	fclose(f);
	return buf;
}

static int csv_fields(const char *line, size_t len)
{
	int n = 1, q = 0;
	for (size_t i = 0; i < len; i++) {
		if (line[i] == '"')
			q = !q;
		else if (line[i] == ',' && !q)
			n++;
	}
	return n;
}

static void test_renderers(void)
{
	struct gd_lab_run r;
	char *out;
	int ret = 0;
	gd_out_init(stdout, 1);
	sample_run(&r);

	out = render(&r, 0, &ret);
	CHECK(strstr(out, "stride 4") != NULL);
	CHECK(strstr(out, "FAIL 3/100 (2 unwritten)") != NULL);
	CHECK(strstr(out, "sector_bytes_per_useful_byte 4 ×") != NULL);
	CHECK(strstr(out, "(datasheet)") != NULL);
	CHECK(strstr(out, "§7 stride 8 is 8.0× slower") != NULL);
	CHECK(strstr(out, "500") != NULL); /* 1e9 B at 2 ms median = 500 GB/s */
	free(out);

	out = render(&r, 1, &ret);
	{
		FILE *f = fopen("lab_test.json", "w");
		fputs(out, f);
		fclose(f);
		CHECK_INT(system("python3 -m json.tool lab_test.json > /dev/null"), 0);
		CHECK_INT(system("python3 -c \"import json,sys; d=json.load(open('lab_test.json')); "
				 "assert d['lab']=='fake' and len(d['results'])==5; "
				 "r=d['results'][1]; assert abs(r['gb_per_s']-500)<1e-6 and "
				 "r['ceiling']['source']=='datasheet'; "
				 "assert d['results'][4]['check']['ok'] is False and "
				 "d['results'][4]['time_s_median'] is None; "
				 "assert d['check_failed'] is True and d['verdicts'][0]['section']=='§7'\""),
			  0);
		remove("lab_test.json");
	}
	free(out);

	out = render(&r, 2, &ret);
	{
		/* every row has the header's number of fields; quotes survive */
		const char *p = out, *nl;
		int hdr = -1, rows = 0, same = 1;
		while ((nl = strchr(p, '\n'))) {
			int n = csv_fields(p, (size_t)(nl - p));
			if (hdr < 0)
				hdr = n;
			else
				same &= n == hdr, rows++;
			p = nl + 1;
		}
		CHECK(same);
		CHECK_INT(rows, 5);
		CHECK_INT(hdr, 25);
		CHECK(strstr(out, "\"sweep, \"\"quoted\"\"\"") != NULL);
		CHECK(strstr(out, ",fail,") != NULL);
	}
	free(out);

	out = render(&r, 3, &ret);
	CHECK_INT(ret, 1);
	CHECK(strstr(out, "<svg") != NULL);
	CHECK(strstr(out, "Chart &amp; title") != NULL);
	CHECK(strstr(out, "DRAM read (datasheet)") != NULL);
	free(out);

	r.has_chart = 0;
	out = render(&r, 3, &ret);
	CHECK_INT(ret, 0);
	free(out);
	gd_lab_run_free(&r);
}

int main(void)
{
	gd_set_quiet(1);
	test_record();
	test_fault_matches();
	test_cmp();
	test_cmp_fn();
	test_conversions();
	test_conversions_vs_cuda();
	test_random();
	test_table();
	test_renderers();
	return TEST_DONE();
}
