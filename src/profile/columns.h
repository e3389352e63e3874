/* The profile database's columns, each declared once (docs/profile-schema.md, "Adding a
 * column"). One X-macro list per table drives the writer's INSERT text and bindings
 * (writer.c) and the reader's SELECT text and struct filling (reader.c); columns_test.c checks
 * every declared column against schema.sql.
 *
 * A line is X(column, TYPE, write, read, field, default):
 *   column   the schema's column name; TYPE its declared type (INTEGER, TEXT, REAL)
 *   write    how the writer gets the value from `r`, the record it inserts (a raw record of
 *            raw.h, a gd_pw_device, a gd_nvml_sample ...), and `c`, the raw file's context:
 *              V(x)        always known
 *              TS(x)       a CUPTI timestamp: 0 = unknown (NULL)
 *              SID(x)      a string id: <= 0 = none (NULL)
 *              NZ(x)       0 = none (NULL), e.g. graph_id 0 = not in a graph
 *              NN(x)       negative = unknown (NULL)
 *              OPT(x, k)   NULL unless k
 *              TXT(s)      text, NULL pointer = NULL; TXTZ(s): "" = NULL; TXTN(s, n): n bytes
 *              DBL(x, k)   a real, NULL unless k
 *              NUL         always NULL (filled later, or by another statement)
 *   read     how the reader fills `field` (an lvalue of `o`, the struct being filled, or of `t`,
 *            the reader's scratch for values it derives from): NO (not read), INT, I64, U32,
 *            U64, DBL (NaN when NULL), I64D (an integer as a double), TXT (copied into a char
 *            array), STR (a pointer valid until the next row), NUM (a stored number as a
 *            double: NaN when NULL, text or a blob, so a hostile 'abc' never reads as 0)
 *   default  the value read when the column is NULL (ignored by DBL, TXT, STR)
 * String ids are read whole (I64) into the scratch and checked against the strings table by
 * the reader, so an id beyond int range cannot alias a real string.
 * The order of a list is the order of the INSERT and SELECT columns; it need not follow
 * schema.sql. A table's reader reads every column whose read is not NO, in list order. */
#ifndef GPUDIAG_PROFILE_COLUMNS_H
#define GPUDIAG_PROFILE_COLUMNS_H

#include <stddef.h>

#define GD_KERNELS_COLUMNS(X)                                                   \
	X(pid, INTEGER, V(c->pid), INT, o->pid, 0)                              \
	X(device, INTEGER, V(dev(c, r->device)), INT, o->device, 0)             \
	X(context, INTEGER, V(r->context), I64, t.context, -1)                  \
	X(stream, INTEGER, V(r->stream), I64, o->stream, -1)                    \
	X(correlation, INTEGER, V(r->correlation), U32, o->corr, 0)             \
	X(start, INTEGER, TS(r->start), I64, o->start, 0)                       \
	X(end, INTEGER, TS(r->end), I64, o->end, 0)                             \
	X(queued, INTEGER, TS(r->queued), NO, _, 0)                             \
	X(submitted, INTEGER, TS(r->submitted), NO, _, 0)                       \
	X(name, INTEGER, SID(name), I64, t.name, -1)                            \
	X(demangled, INTEGER, SID(dem), I64, t.dname, t.name)                   \
	X(short_name, INTEGER, SID(shrt), NO, _, 0)                             \
	X(grid_x, INTEGER, V(r->grid[0]), INT, o->grid[0], 1)                   \
	X(grid_y, INTEGER, V(r->grid[1]), INT, o->grid[1], 1)                   \
	X(grid_z, INTEGER, V(r->grid[2]), INT, o->grid[2], 1)                   \
	X(block_x, INTEGER, V(r->block[0]), INT, o->block[0], 1)                \
	X(block_y, INTEGER, V(r->block[1]), INT, o->block[1], 1)                \
	X(block_z, INTEGER, V(r->block[2]), INT, o->block[2], 1)                \
	X(cluster_x, INTEGER, V(r->cluster[0]), NO, _, 0)                       \
	X(cluster_y, INTEGER, V(r->cluster[1]), NO, _, 0)                       \
	X(cluster_z, INTEGER, V(r->cluster[2]), NO, _, 0)                       \
	X(regs, INTEGER, V(r->regs), INT, o->regs, -1)                          \
	X(static_smem, INTEGER, V(r->static_smem), INT, o->static_smem, 0)      \
	X(dyn_smem, INTEGER, V(r->dyn_smem), INT, o->dyn_smem, 0)               \
	X(smem_executed, INTEGER, V(r->smem_executed), NO, _, 0)                \
	X(local_mem_per_thread, INTEGER, V(r->local_mem_per_thread), NO, _, 0)  \
	X(cache_config, INTEGER, V(r->cache_config), NO, _, 0)                  \
	X(shmem_limit_config, INTEGER, V(r->shmem_limit_config), NO, _, 0)      \
	X(launch_type, INTEGER, V(r->launch_type), NO, _, 0)                    \
	X(graph_id, INTEGER, NZ(r->graph_id), I64, o->graph_id, 0)              \
	X(graph_node_id, INTEGER, NZ(r->graph_node_id), NO, _, 0)               \
	X(is_device_launched, INTEGER, V(r->is_device_launched), NO, _, 0)      \
	X(channel_id, INTEGER, V(r->channel_id), NO, _, 0)                      \
	X(channel_type, INTEGER, V(r->channel_type), NO, _, 0)

#define GD_MEMCPY_COLUMNS(X)                                                                        \
	X(pid, INTEGER, V(c->pid), INT, o->pid, 0)                                                  \
	X(device, INTEGER, V(dev(c, r->device)), INT, o->device, 0)                                 \
	X(context, INTEGER, V(r->context), I64, t.context, -1)                                      \
	X(stream, INTEGER, V(r->stream), I64, o->stream, -1)                                        \
	X(correlation, INTEGER, V(r->correlation), U32, o->corr, 0)                                 \
	X(start, INTEGER, TS(r->start), I64, o->start, 0)                                           \
	X(end, INTEGER, TS(r->end), I64, o->end, 0)                                                 \
	X(bytes, INTEGER, V(r->bytes), I64, o->bytes, 0)                                            \
	X(copy_kind, INTEGER, V(r->copy_kind), INT, o->kind, 0)                                     \
	X(src_kind, INTEGER, V(r->src_kind), INT, o->src_kind, 0)                                   \
	X(dst_kind, INTEGER, V(r->dst_kind), INT, o->dst_kind, 0)                                   \
	X(is_async, INTEGER, V(r->flags & 1), NO, _, 0) /* CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC */      \
	X(copy_count, INTEGER, V(r->copy_count), NO, _, 0)                                          \
	X(src_device, INTEGER, OPT(dev(c, r->src_device), r->src_device != UINT32_MAX), NO, _, 0)   \
	X(dst_device, INTEGER, OPT(dev(c, r->dst_device), r->dst_device != UINT32_MAX), NO, _, 0)   \
	X(graph_id, INTEGER, NZ(r->graph_id), NO, _, 0)                                             \
	X(graph_node_id, INTEGER, NZ(r->graph_node_id), NO, _, 0)                                   \
	X(channel_id, INTEGER, V(r->channel_id), NO, _, 0)                                          \
	X(channel_type, INTEGER, V(r->channel_type), NO, _, 0)

/* A memset is read as a copy of kind GD_CK_MEMSET whose source and destination are mem_kind. */
#define GD_MEMSET_COLUMNS(X)                                                             \
	X(pid, INTEGER, V(c->pid), INT, o->pid, 0)                                       \
	X(device, INTEGER, V(dev(c, r->device)), INT, o->device, 0)                      \
	X(context, INTEGER, V(r->context), I64, t.context, -1)                           \
	X(stream, INTEGER, V(r->stream), I64, o->stream, -1)                             \
	X(correlation, INTEGER, V(r->correlation), U32, o->corr, 0)                      \
	X(start, INTEGER, TS(r->start), I64, o->start, 0)                                \
	X(end, INTEGER, TS(r->end), I64, o->end, 0)                                      \
	X(bytes, INTEGER, V(r->bytes), I64, o->bytes, 0)                                 \
	X(value, INTEGER, V(r->value), NO, _, 0)                                         \
	X(mem_kind, INTEGER, V(r->mem_kind), INT, o->src_kind, 0)                        \
	X(is_async, INTEGER, V(r->flags & 1), NO, _, 0) /* CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC */ \
	X(graph_id, INTEGER, NZ(r->graph_id), NO, _, 0)                                  \
	X(graph_node_id, INTEGER, NZ(r->graph_node_id), NO, _, 0)

#define GD_API_COLUMNS(X)                                               \
	X(pid, INTEGER, V(c->pid), INT, o->pid, 0)                      \
	X(tid, INTEGER, V(r->tid), INT, o->tid, 0)                      \
	X(domain, INTEGER, V(r->domain), NO, _, 0)                      \
	X(cbid, INTEGER, V(r->cbid), NO, _, 0)                          \
	X(name, INTEGER, SID(lstr(c, r->name)), I64, t.name, -1)        \
	X(start, INTEGER, TS(r->start), I64, o->start, 0)               \
	X(end, INTEGER, TS(r->end), I64, o->end, 0)                     \
	X(correlation, INTEGER, V(r->correlation), U32, o->corr, 0)     \
	X(return_value, INTEGER, V(r->return_value), INT, o->ret, 0)

/* Read only as a stand-in for sync API calls that were not traced. */
#define GD_SYNC_COLUMNS(X)                                                                      \
	X(pid, INTEGER, V(c->pid), INT, o->pid, 0)                                              \
	X(context, INTEGER, V(r->context), NO, _, 0)                                            \
	X(stream, INTEGER, OPT(r->stream, r->stream != UINT32_MAX), NO, _, 0)                   \
	X(type, INTEGER, V(r->type), NO, _, 0)                                                  \
	X(start, INTEGER, TS(r->start), I64, o->start, 0)                                       \
	X(end, INTEGER, TS(r->end), I64, o->end, 0)                                             \
	X(correlation, INTEGER, V(r->correlation), NO, _, 0)                                    \
	X(cuda_event, INTEGER, OPT(r->cuda_event, r->type == 1 || r->type == 2), NO, _, 0)      \
	X(return_value, INTEGER, V(r->return_value), NO, _, 0)

/* r: an NVTX range or mark as paired by the writer; mark: 1 for a mark. Read into
 * gd_pnvtx (end -1: a mark, or a range never closed). */
#define GD_NVTX_COLUMNS(X)                                                          \
	X(pid, INTEGER, V(c->pid), INT, o->pid, 0)                                  \
	X(tid, INTEGER, V(r->tid), INT, o->tid, 0)                                  \
	X(kind, INTEGER, V(mark), INT, o->mark, 0)                                  \
	X(domain, INTEGER, SID(lstr(c, r->domain)), I64, t.domain, -1)              \
	X(name, INTEGER, SID(lstr(c, r->name)), I64, t.name, -1)                    \
	X(start, INTEGER, TS(r->start), I64, o->start, 0)                           \
	X(end, INTEGER, OPT(r->end, !mark && r->closed && r->end), I64, o->end, -1) \
	X(color, INTEGER, OPT(r->color, r->has_data), NO, _, 0)                     \
	X(category, INTEGER, OPT(r->category, r->has_data), NO, _, 0)               \
	X(payload, REAL, DBL(r->payload, r->has_payload), NO, _, 0)

#define GD_MEMORY_COLUMNS(X)                                            \
	X(pid, INTEGER, V(c->pid), INT, o->pid, 0)                      \
	X(device, INTEGER, V(dev(c, r->device)), INT, o->device, 0)     \
	X(context, INTEGER, V(r->context), NO, _, 0)                    \
	X(stream, INTEGER, V(r->stream), NO, _, 0)                      \
	X(correlation, INTEGER, V(r->correlation), U32, o->corr, 0)     \
	X(time, INTEGER, TS(r->timestamp), I64, o->t, 0)                \
	X(operation, INTEGER, V(r->operation), INT, o->op, 0)           \
	X(mem_kind, INTEGER, V(r->mem_kind), NO, _, 0)                  \
	X(address, INTEGER, V(r->address), NO, _, 0)                    \
	X(bytes, INTEGER, V(r->bytes), I64D, o->bytes, 0)               \
	X(is_async, INTEGER, V(r->is_async), NO, _, 0)                  \
	X(pool_type, INTEGER, V(r->pool_type), NO, _, 0)

#define GD_OVERHEAD_COLUMNS(X)                                          \
	X(pid, INTEGER, V(c->pid), NO, _, 0)                            \
	X(kind, INTEGER, V(r->kind), NO, _, 0)                          \
	X(object_kind, INTEGER, V(r->object_kind), NO, _, 0)            \
	X(object_id, INTEGER, V(r->object_id), NO, _, 0)                \
	X(start, INTEGER, TS(r->start), NO, _, 0)                       \
	X(end, INTEGER, TS(r->end), NO, _, 0)                           \
	X(correlation, INTEGER, V(r->correlation), NO, _, 0)

/* Read into the reader's table of legacy default streams. */
#define GD_CONTEXTS_COLUMNS(X)                                          \
	X(pid, INTEGER, V(c->pid), I64, o->pid, 0)                      \
	X(context, INTEGER, V(r->context), I64, o->ctx, 0)              \
	X(device, INTEGER, V(dev(c, r->device)), NO, _, 0)              \
	X(null_stream, INTEGER, V(r->null_stream), I64, o->stream, 0)

/* Read into the reader's table of non-blocking streams. */
#define GD_STREAMS_COLUMNS(X)                                           \
	X(pid, INTEGER, V(c->pid), I64, o->pid, 0)                      \
	X(stream, INTEGER, V(r->stream), I64, o->stream, 0)             \
	X(context, INTEGER, V(r->context), NO, _, 0)                    \
	X(priority, INTEGER, V(r->priority), NO, _, 0)                  \
	X(flags, INTEGER, V(r->flags), NO, _, 0)                        \
	X(correlation, INTEGER, V(r->correlation), NO, _, 0)

#define GD_DROPPED_COLUMNS(X)                                                   \
	X(pid, INTEGER, V(c->pid), NO, _, 0)                                    \
	X(source, TEXT, TXT(r->source ? "gpudiag" : "cupti"), NO, _, 0)         \
	X(context, INTEGER, OPT(r->context, r->context != 0), NO, _, 0)         \
	X(stream, INTEGER, OPT(r->stream, r->source == 0), NO, _, 0)            \
	X(count, INTEGER, V(r->count), NO, _, 0)

/* r: the text (n bytes) of string `id`. */
#define GD_STRINGS_COLUMNS(X)                                           \
	X(id, INTEGER, V(id), I64, t.id, -1)                            \
	X(value, TEXT, TXTN(r, n), STR, t.value, 0)

/* r: a gd_nvml_sample of device `device`. */
#define GD_NVML_COLUMNS(X)                                                                              \
	X(t, INTEGER, V(r->t_ns), I64, o->t, 0)                                                         \
	X(device, INTEGER, V(device), INT, o->device, 0)                                                \
	X(util_gpu, INTEGER, NN(r->util_gpu), INT, o->util_gpu, -1)                                     \
	X(util_mem, INTEGER, NN(r->util_mem), INT, o->util_mem, -1)                                     \
	X(mem_used, INTEGER, OPT(r->mem_used, r->mem_used != GD_NVML_UNKNOWN64), DBL, o->mem_used, 0)   \
	X(mem_total, INTEGER, OPT(r->mem_total, r->mem_total != GD_NVML_UNKNOWN64), DBL, o->mem_total, 0) \
	X(power_mw, INTEGER, NN(r->power_mw), DBL, o->power_w, 0) /* mW: the reader scales to W */     \
	X(power_limit_mw, INTEGER, NN(r->power_limit_mw), NO, _, 0)                                     \
	X(temp_c, INTEGER, OPT(r->temp_c, r->temp_c != GD_NVML_UNKNOWN), DBL, o->temp_c, 0)             \
	X(sm_mhz, INTEGER, NN(r->sm_mhz), INT, o->sm_mhz, -1)                                           \
	X(mem_mhz, INTEGER, NN(r->mem_mhz), INT, o->mem_mhz, -1)                                        \
	X(clock_reasons, INTEGER, OPT(r->clock_reasons, r->clock_reasons != GD_NVML_UNKNOWN64), U64,    \
	  o->reasons, ~0ULL)                                                                            \
	X(pcie_tx_kbps, INTEGER, NN(r->pcie_tx_kbps), NO, _, 0)                                         \
	X(pcie_rx_kbps, INTEGER, NN(r->pcie_rx_kbps), NO, _, 0)

/* r: the process's ordinal record; id: the devices row it maps to. */
#define GD_PROCDEV_COLUMNS(X)                                           \
	X(pid, INTEGER, V(c->pid), NO, _, 0)                            \
	X(ordinal, INTEGER, V(r->ordinal), NO, _, 0)                    \
	X(device, INTEGER, V(id), NO, _, 0)

/* r: a gd_pw_device (fields < 0 unknown). The occupancy properties are read into the scratch:
 * they override the architecture table only where recorded. mem_bandwidth_kbps is filled by
 * an UPDATE from the raw device record. */
#define GD_DEVICES_COLUMNS(X)                                                                          \
	X(id, INTEGER, V(r->id), NO, _, 0)                                                             \
	X(uuid, TEXT, TXTZ(r->uuid), TXT, o->uuid, 0)                                                  \
	X(name, TEXT, TXTZ(r->name), TXT, o->name, 0)                                                  \
	X(pci_bus_id, TEXT, TXTZ(r->pci_bus_id), NO, _, 0)                                             \
	X(nvml_index, INTEGER, NN(r->nvml_index), NO, _, 0)                                            \
	X(cc_major, INTEGER, NN(r->cc_major), INT, o->major, 0)                                        \
	X(cc_minor, INTEGER, NN(r->cc_minor), INT, o->minor, 0)                                        \
	X(sm_count, INTEGER, NN(r->sm_count), INT, o->sm_count, 0)                                     \
	X(warp_size, INTEGER, NN(r->warp_size), INT, t.warp_size, 0)                                   \
	X(max_threads_per_block, INTEGER, NN(r->max_threads_per_block), INT, t.max_threads_per_block, 0) \
	X(max_threads_per_sm, INTEGER, NN(r->max_threads_per_sm), INT, t.max_threads_per_sm, 0)        \
	X(max_warps_per_sm, INTEGER, NN(warps_per_sm(r)), NO, _, 0)                                    \
	X(max_blocks_per_sm, INTEGER, NN(r->max_blocks_per_sm), INT, t.max_blocks_per_sm, 0)           \
	X(regs_per_sm, INTEGER, NN(r->regs_per_sm), INT, t.regs_per_sm, 0)                             \
	X(regs_per_block, INTEGER, NN(r->regs_per_block), INT, t.regs_per_block, 0)                    \
	X(smem_per_sm, INTEGER, NN(r->smem_per_sm), INT, t.smem_per_sm, 0)                             \
	X(smem_per_block, INTEGER, NN(r->smem_per_block), INT, t.smem_per_block, 0)                    \
	X(smem_per_block_optin, INTEGER, NN(r->smem_per_block_optin), INT, t.smem_per_block_optin, 0)  \
	X(reserved_smem_per_block, INTEGER, NN(r->reserved_smem_per_block), INT, t.smem_reserved, -1)  \
	X(l2_bytes, INTEGER, NN(r->l2_bytes), NO, _, 0)                                                \
	X(global_mem_bytes, INTEGER, NN(r->global_mem_bytes), DBL, o->mem_total, 0)                    \
	X(mem_bus_width_bits, INTEGER, NN(r->mem_bus_width_bits), INT, o->mem_bus_bits, -1)            \
	X(mem_clock_khz, INTEGER, NN(r->mem_clock_khz), INT, o->mem_clock_khz, -1)                     \
	X(sm_clock_khz, INTEGER, NN(r->sm_clock_khz), INT, t.sm_clock_khz, -1000)                      \
	X(async_engines, INTEGER, NN(r->async_engines), NO, _, 0)                                      \
	X(mem_bandwidth_kbps, INTEGER, NUL, NO, _, 0)

/* r: the raw header; st: its stats; the process's command line, start, end and ppid come from
 * its GD_RAW_PROCESS/GD_RAW_END records. exit_code/exit_signal are set by gd_pw_child. */
#define GD_PROCESSES_COLUMNS(X)                                                       \
	X(pid, INTEGER, V(r->pid), INT, o->pid, 0)                                    \
	X(ppid, INTEGER, V(ppid ? ppid : r->ppid), INT, o->ppid, 0)                   \
	X(command_line, TEXT, TXT(cmd), NO, _, 0)                                     \
	X(start_ns, INTEGER, V(start ? start : r->start_ns), NO, _, 0)                \
	X(end_ns, INTEGER, TS(end), NO, _, 0)                                         \
	X(exit_code, INTEGER, NUL, INT, o->exit_code, -1)                             \
	X(exit_signal, INTEGER, NUL, INT, o->exit_signal, -1)                         \
	X(traced, INTEGER, V(st->status == GD_RAW_ST_OK), INT, o->traced, 0)          \
	X(status, TEXT, TXT(status_name(st->status)), TXT, o->status, 0)              \
	X(cupti_version, INTEGER, V(r->cupti_version), NO, _, 0)                      \
	X(raw_records, INTEGER, V(st->records), NO, _, 0)                             \
	X(raw_truncated, INTEGER, V(st->truncated), NO, _, 0)

/* The GPU-metrics quantities (pm_metrics.h) as profile columns, one line each:
 * Q(X, column, enum). The column is gd_pm_metrics[enum].column (columns_test.c checks the two
 * lists agree, in enum order); gpu_metrics and kernel_metrics both end with these columns. */
#define GD_PM_QUANTITIES(Q, X)                          \
	Q(X, gpc_mhz, GD_PM_GPC_MHZ)                    \
	Q(X, gr_active_pct, GD_PM_GR_ACTIVE)            \
	Q(X, sm_active_pct, GD_PM_SM_ACTIVE)            \
	Q(X, sm_issue_pct, GD_PM_SM_ISSUE)              \
	Q(X, tensor_active_pct, GD_PM_TENSOR)           \
	Q(X, dram_pct, GD_PM_DRAM)                      \
	Q(X, dram_read_pct, GD_PM_DRAM_READ)            \
	Q(X, dram_write_pct, GD_PM_DRAM_WRITE)          \
	Q(X, l2_pct, GD_PM_L2)                          \
	Q(X, warps_active_pct, GD_PM_WARPS_ACTIVE)      \
	Q(X, warps_unused_pct, GD_PM_WARPS_UNUSED)      \
	Q(X, pcie_read_bps, GD_PM_PCIE_READ)            \
	Q(X, pcie_write_bps, GD_PM_PCIE_WRITE)
/* A quantity's column line: r->v[m] written as a real, NULL when not finite (NaN = not
 * collected); read into o->v[m] (NaN when NULL; the reader then drops absurd values). */
#define GD_PM_COLUMN(X, col, m) X(col, REAL, DBL(r->v[m], isfinite(r->v[m])), NUM, o->v[m], 0)

/* r: a gd_pm_sample. A row with a NULL time reads as -1, an impossible time: counted, left out. */
#define GD_GPU_METRICS_COLUMNS(X)                               \
	X(device, INTEGER, V(r->device), INT, o->device, 0)     \
	X(t_start, INTEGER, V(r->t_start), I64, o->t_start, -1) \
	X(t_end, INTEGER, V(r->t_end), I64, o->t_end, -1)       \
	GD_PM_QUANTITIES(GD_PM_COLUMN, X)

/* r: a gd_pm_kernel whose name is the kernel's string id (the reader checks the id, in the
 * scratch, against the strings table). */
#define GD_KERNEL_METRICS_COLUMNS(X)                            \
	X(device, INTEGER, V(r->device), INT, o->device, 0)     \
	X(name, INTEGER, SID(r->name), I64, t.name, -1)         \
	X(samples, INTEGER, V(r->samples), I64, o->samples, 0)  \
	GD_PM_QUANTITIES(GD_PM_COLUMN, X)                       \
	X(dram_bps, REAL, DBL(r->dram_bps, isfinite(r->dram_bps)), NO, _, 0)

/* Per-launch counters (issue 19, kc_metrics.h). r: a gd_raw_klaunch of the raw file `c`;
 * status: its gd_kl_status_names text; detail: the text of its detail string (NULL none).
 * The reader fills a gd_klaunch and reads the name id, status and detail into the scratch. */
#define GD_METRIC_LAUNCHES_COLUMNS(X)                                                   \
	X(pid, INTEGER, V(c->pid), INT, o->pid, 0)                                      \
	X(correlation, INTEGER, V(r->correlation), U32, o->corr, 0)                     \
	X(device, INTEGER, V(dev(c, r->device)), INT, o->device, -1)                    \
	X(name, INTEGER, SID(lstr(c, r->name)), I64, t.name, -1)                        \
	X(nth, INTEGER, V(r->nth), I64, t.nth, -1)                                      \
	X(passes, INTEGER, V(r->passes), I64, t.passes, 0)                              \
	X(status, TEXT, TXT(status), STR, t.status, 0)                                  \
	X(detail, TEXT, TXT(detail), STR, t.detail, 0)                                  \
	X(profile_ns, INTEGER, OPT(r->profile_ns, r->profile_ns != 0), I64, t.profile_ns, -1) \
	X(replay, TEXT, TXT(replay), NO, _, 0)                                          \
	X(l2_flushed, INTEGER, OPT((r->flags & GD_KL_F_FLUSH) != 0, replay != NULL), NO, _, 0)

/* r: one gd_raw_kvalue of the launch `k` (its gd_raw_klaunch). The reader fills a scratch
 * row and attaches it to its launch (a quantity of kc_metrics.h, or an extra). */
#define GD_METRIC_VALUES_COLUMNS(X)                                                     \
	X(pid, INTEGER, V(c->pid), INT, o->pid, 0)                                      \
	X(correlation, INTEGER, V(k->correlation), U32, o->corr, 0)                     \
	X(metric, INTEGER, SID(lstr(c, r->metric)), I64, o->metric, -1)                 \
	X(value, REAL, DBL(r->value, isfinite(r->value)), NUM, o->value, 0)

/* r: a gd_pceilings (profile.h) of device `device`; NaN figures are NULL. Read into a
 * gd_pceilings (NaN when NULL or not a number; the reader then drops absurd values).
 * GD_CEIL_PREC: one precision's figure of a unit (cuda_core or tensor). */
#define GD_CEIL_PREC(X, col, unit, p) X(col, REAL, DBL(r->unit[p], isfinite(r->unit[p])), NUM, o->unit[p], 0)
#define GD_CEILINGS_COLUMNS(X)                                                          \
	X(device, INTEGER, V(device), I64, t.device, -1)                                \
	X(dram_bps, REAL, DBL(r->dram_bps, isfinite(r->dram_bps)), NUM, o->dram_bps, 0) \
	X(l2_bps, REAL, DBL(r->l2_bps, isfinite(r->l2_bps)), NUM, o->l2_bps, 0)         \
	GD_CEIL_PREC(X, cuda_fp64_flops, cuda_core, GD_P_FP64)                          \
	GD_CEIL_PREC(X, cuda_fp32_flops, cuda_core, GD_P_FP32)                          \
	GD_CEIL_PREC(X, cuda_tf32_flops, cuda_core, GD_P_TF32)                          \
	GD_CEIL_PREC(X, cuda_fp16_flops, cuda_core, GD_P_FP16)                          \
	GD_CEIL_PREC(X, cuda_bf16_flops, cuda_core, GD_P_BF16)                          \
	GD_CEIL_PREC(X, cuda_fp8_flops, cuda_core, GD_P_FP8)                            \
	GD_CEIL_PREC(X, cuda_int8_flops, cuda_core, GD_P_INT8)                          \
	GD_CEIL_PREC(X, cuda_int4_flops, cuda_core, GD_P_INT4)                          \
	GD_CEIL_PREC(X, cuda_fp4_flops, cuda_core, GD_P_FP4)                            \
	GD_CEIL_PREC(X, tensor_fp64_flops, tensor, GD_P_FP64)                           \
	GD_CEIL_PREC(X, tensor_fp32_flops, tensor, GD_P_FP32)                           \
	GD_CEIL_PREC(X, tensor_tf32_flops, tensor, GD_P_TF32)                           \
	GD_CEIL_PREC(X, tensor_fp16_flops, tensor, GD_P_FP16)                           \
	GD_CEIL_PREC(X, tensor_bf16_flops, tensor, GD_P_BF16)                           \
	GD_CEIL_PREC(X, tensor_fp8_flops, tensor, GD_P_FP8)                             \
	GD_CEIL_PREC(X, tensor_int8_flops, tensor, GD_P_INT8)                           \
	GD_CEIL_PREC(X, tensor_int4_flops, tensor, GD_P_INT4)                           \
	GD_CEIL_PREC(X, tensor_fp4_flops, tensor, GD_P_FP4)                             \
	X(measured_at, REAL, DBL(r->measured_at, r->measured_at > 0), NUM, o->measured_at, 0) \
	X(sm_clock_mhz, INTEGER, NN(r->sm_clock_mhz), I64, t.sm_clock_mhz, -1)

/* The tables, in the order of gd_tables[]. */
enum gd_table_id {
	GD_T_KERNELS, GD_T_MEMCPY, GD_T_MEMSET, GD_T_API, GD_T_SYNC, GD_T_NVTX, GD_T_MEMORY, GD_T_OVERHEAD,
	GD_T_CONTEXTS, GD_T_STREAMS, GD_T_DROPPED, GD_T_STRINGS, GD_T_NVML, GD_T_PROCDEV, GD_T_DEVICES,
	GD_T_PROCESSES, GD_T_GPU_METRICS, GD_T_KERNEL_METRICS, GD_T_METRIC_LAUNCHES, GD_T_METRIC_VALUES,
	GD_T_CEILINGS, GD_T_COUNT
};

struct gd_col {
	const char *name, *type; /* as in schema.sql */
	int read;                /* the reader selects it */
};

struct gd_table {
	const char *name;
	const char *insert;      /* "INSERT" or "INSERT OR REPLACE" */
	const char *read_tail;   /* what follows "SELECT cols FROM table" in the reader, or NULL */
	const struct gd_col *cols;
	int ncols;
};

extern const struct gd_table gd_tables[GD_T_COUNT];

/* "INSERT ... INTO t(c1,...) VALUES(?,...)" and "SELECT c1, ... FROM t<tail>" (the columns the
 * reader reads). Return the length written, or -1 when buf is too small. */
int gd_table_insert_sql(const struct gd_table *t, char *buf, size_t n);
int gd_table_select_sql(const struct gd_table *t, char *buf, size_t n);

#endif
