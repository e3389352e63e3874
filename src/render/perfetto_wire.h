/* The protocol-buffer wire format, as much of it as the native Perfetto export writes
 * (render/perfetto_pb.c): varints, 64-bit fixed fields, length-delimited fields, and nested
 * messages whose length is written in place once they are complete.
 *
 * Why by hand and not with libprotobuf-c or protobuf (both in Debian): either adds a run-time
 * library and a code-generation step over .proto files that would have to be copied from
 * Perfetto, for about a dozen messages of which the export sets a few fields each. The wire
 * format is four encodings that fit in this file, and the export streams packets of tens of
 * bytes through one reusable buffer instead of building message objects.
 *
 * A nested message is opened with one byte reserved for its length; closing it writes the
 * length there, or moves the body up when the length needs more bytes (rare: the export's
 * messages are mostly under 128 bytes). Positions are offsets, so an enclosing message stays
 * valid when the buffer grows. Out of memory sets `oom` and turns every later write into a
 * no-op; the writer checks it once per flush. */
#ifndef GPUDIAG_RENDER_PERFETTO_WIRE_H
#define GPUDIAG_RENDER_PERFETTO_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct gd_pb {
	unsigned char *p;
	size_t n, cap;
	int oom;
};

enum { GD_PB_VARINT = 0, GD_PB_FIXED64 = 1, GD_PB_LEN = 2 };

/* Room for k more bytes: 1, or 0 (oom set) when memory runs out. */
static inline int gd_pb_room(struct gd_pb *b, size_t k)
{
	unsigned char *p;
	size_t cap;
	if (b->n + k <= b->cap)
		return !b->oom;
	if (b->oom)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->n + k)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return 0;
	}
	b->p = p, b->cap = cap;
	return 1;
}

static inline void gd_pb_free(struct gd_pb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static inline size_t gd_pb_varint_size(uint64_t v)
{
	size_t k = 1;
	while (v >= 0x80)
		v >>= 7, k++;
	return k;
}

static inline void gd_pb_varint(struct gd_pb *b, uint64_t v)
{
	unsigned char *p;
	if (!gd_pb_room(b, 10))
		return;
	p = b->p + b->n;
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	b->n = (size_t)(p - b->p);
}

static inline void gd_pb_tag(struct gd_pb *b, unsigned field, unsigned wire)
{
	gd_pb_varint(b, ((uint64_t)field << 3) | wire);
}

/* uint32/uint64/int32/int64/bool/enum fields: a negative int64 is its two's complement
 * (ten bytes), as protobuf's int64 is. */
static inline void gd_pb_uint(struct gd_pb *b, unsigned field, uint64_t v)
{
	gd_pb_tag(b, field, GD_PB_VARINT);
	gd_pb_varint(b, v);
}

static inline void gd_pb_fixed64(struct gd_pb *b, unsigned field, uint64_t v)
{
	gd_pb_tag(b, field, GD_PB_FIXED64);
	if (!gd_pb_room(b, 8))
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->n++] = (unsigned char)(v >> (8 * i)); /* little-endian on the wire */
}

static inline void gd_pb_double(struct gd_pb *b, unsigned field, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof(u));
	gd_pb_fixed64(b, field, u);
}

static inline void gd_pb_bytes(struct gd_pb *b, unsigned field, const void *s, size_t len)
{
	gd_pb_tag(b, field, GD_PB_LEN);
	gd_pb_varint(b, len);
	if (!gd_pb_room(b, len))
		return;
	if (len)
		memcpy(b->p + b->n, s, len);
	b->n += len;
}

static inline void gd_pb_str(struct gd_pb *b, unsigned field, const char *s)
{
	gd_pb_bytes(b, field, s, strlen(s));
}

/* Opens a nested message (or a packet of the top-level Trace): returns where its length
 * goes, for gd_pb_close. */
static inline size_t gd_pb_open(struct gd_pb *b, unsigned field)
{
	gd_pb_tag(b, field, GD_PB_LEN);
	if (!gd_pb_room(b, 1))
		return b->n;
	b->p[b->n] = 0;
	return b->n++;
}

static inline void gd_pb_close(struct gd_pb *b, size_t at)
{
	size_t len, k;
	uint64_t v;
	if (b->oom || at >= b->n)
		return;
	len = b->n - at - 1;
	if (len < 0x80) {
		b->p[at] = (unsigned char)len;
		return;
	}
	k = gd_pb_varint_size(len);
	if (!gd_pb_room(b, k - 1))
		return;
	memmove(b->p + at + k, b->p + at + 1, len);
	b->n += k - 1;
	for (v = len; v >= 0x80; v >>= 7)
		b->p[at++] = (unsigned char)(v | 0x80);
	b->p[at] = (unsigned char)v;
}

#endif
