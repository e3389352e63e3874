-- gpudiag profile database, schema version 1.
-- Documented in docs/profile-schema.md. Changes after version 1 are additive only
-- (new tables, new nullable columns, new indexes, new meta keys); a reader checks
-- meta.schema_version and refuses versions it does not know.
-- Conventions: every time is an integer in ns on CLOCK_REALTIME (the clock CUPTI uses by
-- default; the NVML samples are taken on it too). Every name is an id into `strings`.
-- Unknown values are NULL. `pid` is the OS process id of the profiled process.
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE processes (
  pid INTEGER PRIMARY KEY, ppid INTEGER, command_line TEXT, start_ns INTEGER, end_ns INTEGER,
  exit_code INTEGER, exit_signal INTEGER,
  traced INTEGER NOT NULL,        -- 1 = CUPTI records were taken, 0 = ran unprofiled
  status TEXT,                    -- 'ok', or why not traced: 'cupti_busy', 'cupti_version', ...
  cupti_version INTEGER, raw_records INTEGER, raw_truncated INTEGER);
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,         -- gpudiag's device id (CUDA ordinal as seen by gpudiag run)
  uuid TEXT, name TEXT, pci_bus_id TEXT, nvml_index INTEGER,
  cc_major INTEGER, cc_minor INTEGER, sm_count INTEGER, warp_size INTEGER,
  max_threads_per_block INTEGER, max_threads_per_sm INTEGER, max_warps_per_sm INTEGER,
  max_blocks_per_sm INTEGER, regs_per_sm INTEGER, regs_per_block INTEGER,
  smem_per_sm INTEGER, smem_per_block INTEGER, smem_per_block_optin INTEGER,
  reserved_smem_per_block INTEGER, l2_bytes INTEGER, global_mem_bytes INTEGER,
  mem_bus_width_bits INTEGER, mem_clock_khz INTEGER, sm_clock_khz INTEGER,
  async_engines INTEGER, mem_bandwidth_kbps INTEGER);
CREATE TABLE process_devices (  -- a process's CUDA ordinal (CUDA_VISIBLE_DEVICES may differ)
  pid INTEGER NOT NULL, ordinal INTEGER NOT NULL, device INTEGER, PRIMARY KEY (pid, ordinal));
CREATE TABLE contexts (
  pid INTEGER NOT NULL, context INTEGER NOT NULL, device INTEGER,
  null_stream INTEGER,            -- stream id of the legacy default stream
  PRIMARY KEY (pid, context));
CREATE TABLE streams (
  pid INTEGER NOT NULL, stream INTEGER NOT NULL, context INTEGER, priority INTEGER,
  flags INTEGER,                  -- CUPTI stream flag: 0 unknown, 1 default, 2 non-blocking, 3 legacy null
  correlation INTEGER, PRIMARY KEY (pid, stream));
CREATE TABLE kernels (
  id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, device INTEGER, context INTEGER, stream INTEGER,
  correlation INTEGER, start INTEGER, end INTEGER, queued INTEGER, submitted INTEGER,
  name INTEGER,                   -- strings: the name CUPTI reports (mangled)
  demangled INTEGER,              -- strings: full demangled name
  short_name INTEGER,             -- strings: function name without namespaces, templates, args
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER,
  cluster_x INTEGER, cluster_y INTEGER, cluster_z INTEGER,
  regs INTEGER, static_smem INTEGER, dyn_smem INTEGER, smem_executed INTEGER,
  local_mem_per_thread INTEGER, cache_config INTEGER, shmem_limit_config INTEGER,
  launch_type INTEGER,            -- 0 regular, 1 cooperative single, 2 cooperative multi, 3 CBL
  graph_id INTEGER, graph_node_id INTEGER, is_device_launched INTEGER,
  channel_id INTEGER, channel_type INTEGER);
CREATE TABLE memcpy (
  id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, device INTEGER, context INTEGER, stream INTEGER,
  correlation INTEGER, start INTEGER, end INTEGER, bytes INTEGER,
  copy_kind INTEGER,              -- CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP ...
  src_kind INTEGER, dst_kind INTEGER, -- CUpti_ActivityMemoryKind: 1 pageable, 2 pinned, 3 device, 5 managed
  is_async INTEGER, copy_count INTEGER, src_device INTEGER, dst_device INTEGER,
  graph_id INTEGER, graph_node_id INTEGER, channel_id INTEGER, channel_type INTEGER);
CREATE TABLE memset (
  id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, device INTEGER, context INTEGER, stream INTEGER,
  correlation INTEGER, start INTEGER, end INTEGER, bytes INTEGER, value INTEGER,
  mem_kind INTEGER, is_async INTEGER, graph_id INTEGER, graph_node_id INTEGER);
CREATE TABLE api (
  id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER,
  domain INTEGER,                 -- 1 runtime, 2 driver
  cbid INTEGER, name INTEGER,     -- strings: e.g. 'cudaLaunchKernel_v7000'
  start INTEGER, end INTEGER, correlation INTEGER, return_value INTEGER);
CREATE TABLE sync (
  id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, context INTEGER,
  stream INTEGER,                 -- NULL for context synchronisation
  type INTEGER,                   -- 1 event, 2 stream wait event, 3 stream, 4 context
  start INTEGER, end INTEGER, correlation INTEGER, cuda_event INTEGER, return_value INTEGER);
CREATE TABLE nvtx (
  id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER,
  kind INTEGER,                   -- 0 range (push/pop or start/end), 1 mark (instant)
  domain INTEGER, name INTEGER,   -- strings
  start INTEGER, end INTEGER,     -- end NULL for a mark or a range never closed
  color INTEGER, category INTEGER, payload REAL);
CREATE TABLE memory (
  id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, device INTEGER, context INTEGER, stream INTEGER,
  correlation INTEGER, time INTEGER,
  operation INTEGER,              -- 1 allocation, 2 release
  mem_kind INTEGER, address INTEGER, bytes INTEGER, is_async INTEGER, pool_type INTEGER);
CREATE TABLE overhead (
  id INTEGER PRIMARY KEY, pid INTEGER NOT NULL,
  kind INTEGER,                   -- CUpti_ActivityOverheadKind: 0x10000 flush ... 0x60000 command buffer full
  object_kind INTEGER, object_id INTEGER, start INTEGER, end INTEGER, correlation INTEGER);
CREATE TABLE nvml_samples (
  t INTEGER NOT NULL, device INTEGER, util_gpu INTEGER, util_mem INTEGER, mem_used INTEGER,
  mem_total INTEGER, power_mw INTEGER, power_limit_mw INTEGER, temp_c INTEGER, sm_mhz INTEGER,
  mem_mhz INTEGER, clock_reasons INTEGER, pcie_tx_kbps INTEGER, pcie_rx_kbps INTEGER);
CREATE TABLE dropped (
  pid INTEGER NOT NULL,
  source TEXT NOT NULL,           -- 'cupti' (CUPTI's own count) or 'gpudiag' (buffers lost in the writer)
  context INTEGER, stream INTEGER, count INTEGER NOT NULL);
CREATE TABLE capture_ranges (
  start INTEGER NOT NULL, end INTEGER NOT NULL,
  source TEXT NOT NULL);          -- 'all', 'delay/duration', 'cudaProfilerApi', 'nvtx:NAME'
CREATE TABLE gpu_metrics (       -- PM sampling (CUPTI) of one device over [t_start, t_end)
  device INTEGER NOT NULL, t_start INTEGER NOT NULL, t_end INTEGER NOT NULL,
  -- one column per quantity of src/profile/pm_metrics.h; NULL = not collected
  gpc_mhz REAL, gr_active_pct REAL, sm_active_pct REAL, sm_issue_pct REAL, tensor_active_pct REAL,
  dram_pct REAL, dram_read_pct REAL, dram_write_pct REAL, l2_pct REAL, warps_active_pct REAL,
  warps_unused_pct REAL, pcie_read_bps REAL, pcie_write_bps REAL);
CREATE TABLE kernel_metrics (    -- mean of the gpu_metrics samples attributed to one kernel name
  device INTEGER NOT NULL,
  name INTEGER NOT NULL,          -- strings: as kernels.name
  samples INTEGER NOT NULL,       -- samples attributed (at least 3)
  gpc_mhz REAL, gr_active_pct REAL, sm_active_pct REAL, sm_issue_pct REAL, tensor_active_pct REAL,
  dram_pct REAL, dram_read_pct REAL, dram_write_pct REAL, l2_pct REAL, warps_active_pct REAL,
  warps_unused_pct REAL, pcie_read_bps REAL, pcie_write_bps REAL,
  dram_bps REAL,                  -- dram_pct of the device's DRAM peak (2 x mem clock x bus width)
  PRIMARY KEY (device, name));

CREATE TABLE metric_launches (  -- a launch gpudiag run --metrics was asked to profile (issue 19)
  pid INTEGER NOT NULL, correlation INTEGER NOT NULL, -- joins kernels on (pid, correlation)
  device INTEGER,
  name INTEGER,                   -- strings: the kernel's name as recorded (mangled), as kernels.name
  nth INTEGER,                    -- 0-based launch index of this name in its process
  passes INTEGER,                 -- replay passes (0 when skipped)
  status TEXT NOT NULL,           -- 'ok' (profiled), or why skipped: 'cooperative', 'graph', 'communication', 'over budget', 'error'
  detail TEXT,                    -- why skipped / CUPTI's error text / how it was replayed when not as asked; NULL none
  profile_ns INTEGER,             -- wall time spent profiling the launch (set-up to decode)
  replay TEXT,                    -- 'user' (gpudiag replayed each pass itself, memory saved/restored
                                  -- with CUPTI's checkpoint API) or 'kernel' (CUPTI's kernel replay);
                                  -- NULL when not replayed (skipped) or before this column
  l2_flushed INTEGER);            -- 1: L2 flushed before every pass (as ncu --cache-control all), 0 not
CREATE TABLE metric_values (     -- one counter value of a profiled launch
  pid INTEGER NOT NULL, correlation INTEGER NOT NULL, -- the metric_launches row
  metric INTEGER NOT NULL,        -- strings: the CUPTI metric name (src/profile/kc_metrics.c)
  value REAL);                    -- as CUPTI evaluated it; NULL = it gave none
CREATE TABLE ceilings (          -- what gpudiag roofline measured on the device (its cache)
  device INTEGER PRIMARY KEY,
  dram_bps REAL, l2_bps REAL,     -- DRAM copy (read + write) and L2 read, bytes/s
  cuda_fp64_flops REAL, cuda_fp32_flops REAL, cuda_tf32_flops REAL, cuda_fp16_flops REAL,
  cuda_bf16_flops REAL, cuda_fp8_flops REAL, cuda_int8_flops REAL, cuda_int4_flops REAL,
  cuda_fp4_flops REAL,            -- CUDA cores, FLOP/s (OP/s for int); NULL = not measured
  tensor_fp64_flops REAL, tensor_fp32_flops REAL, tensor_tf32_flops REAL, tensor_fp16_flops REAL,
  tensor_bf16_flops REAL, tensor_fp8_flops REAL, tensor_int8_flops REAL, tensor_int4_flops REAL,
  tensor_fp4_flops REAL,          -- tensor cores, FLOP/s (OP/s for int); NULL = not measured
  measured_at REAL,               -- unix time of the measurement
  sm_clock_mhz INTEGER);          -- median SM clock while measuring

CREATE INDEX kernels_start ON kernels(start);
CREATE INDEX kernels_name ON kernels(name);
CREATE INDEX kernels_corr ON kernels(pid, correlation);
CREATE INDEX memcpy_start ON memcpy(start);
CREATE INDEX memcpy_corr ON memcpy(pid, correlation);
CREATE INDEX memset_corr ON memset(pid, correlation);
CREATE INDEX api_start ON api(start);
CREATE INDEX api_corr ON api(pid, correlation);
CREATE INDEX sync_start ON sync(start);
CREATE INDEX nvtx_start ON nvtx(start);
CREATE INDEX nvml_t ON nvml_samples(t);
CREATE INDEX gpu_metrics_t ON gpu_metrics(device, t_start);
CREATE INDEX metric_launches_corr ON metric_launches(pid, correlation);
CREATE INDEX metric_values_corr ON metric_values(pid, correlation);

CREATE VIEW kernels_v AS
  SELECT k.*, n.value AS name_str, d.value AS demangled_str, s.value AS short_name_str,
         k.end - k.start AS duration
  FROM kernels k LEFT JOIN strings n ON n.id = k.name LEFT JOIN strings d ON d.id = k.demangled
  LEFT JOIN strings s ON s.id = k.short_name;
CREATE VIEW api_v AS
  SELECT a.*, n.value AS name_str, a.end - a.start AS duration
  FROM api a LEFT JOIN strings n ON n.id = a.name;
-- CUPTI's copy and memory kinds decoded (CUpti_ActivityMemcpyKind, CUpti_ActivityMemoryKind;
-- the same names as gd_copy_kind_name and gd_memory_kind_name in src/analysis/tables.c).
CREATE VIEW memcpy_v AS
  SELECT m.*,
         CASE m.copy_kind WHEN 1 THEN 'HtoD' WHEN 2 THEN 'DtoH' WHEN 3 THEN 'HtoA' WHEN 4 THEN 'AtoH'
           WHEN 5 THEN 'AtoA' WHEN 6 THEN 'AtoD' WHEN 7 THEN 'DtoA' WHEN 8 THEN 'DtoD' WHEN 9 THEN 'HtoH'
           WHEN 10 THEN 'PtoP' ELSE 'unknown' END AS copy_kind_name,
         CASE m.src_kind WHEN 1 THEN 'pageable' WHEN 2 THEN 'pinned' WHEN 3 THEN 'device' WHEN 4 THEN 'array'
           WHEN 5 THEN 'managed' WHEN 6 THEN 'device static' WHEN 7 THEN 'managed static'
           ELSE 'unknown' END AS src_kind_name,
         CASE m.dst_kind WHEN 1 THEN 'pageable' WHEN 2 THEN 'pinned' WHEN 3 THEN 'device' WHEN 4 THEN 'array'
           WHEN 5 THEN 'managed' WHEN 6 THEN 'device static' WHEN 7 THEN 'managed static'
           ELSE 'unknown' END AS dst_kind_name,
         m.end - m.start AS duration,
         CASE WHEN m.end > m.start THEN m.bytes * 1e9 / (m.end - m.start) END AS bandwidth_bps
  FROM memcpy m;
CREATE VIEW memset_v AS
  SELECT s.*,
         CASE s.mem_kind WHEN 1 THEN 'pageable' WHEN 2 THEN 'pinned' WHEN 3 THEN 'device' WHEN 4 THEN 'array'
           WHEN 5 THEN 'managed' WHEN 6 THEN 'device static' WHEN 7 THEN 'managed static'
           ELSE 'unknown' END AS mem_kind_name,
         s.end - s.start AS duration,
         CASE WHEN s.end > s.start THEN s.bytes * 1e9 / (s.end - s.start) END AS bandwidth_bps
  FROM memset s;
CREATE VIEW nvtx_v AS
  SELECT v.id, v.pid, v.tid, v.kind, CASE v.kind WHEN 1 THEN 'mark' ELSE 'range' END AS kind_name,
         d.value AS domain_str, n.value AS name_str, v.start, v.end, v.end - v.start AS duration,
         v.color, v.category, v.payload
  FROM nvtx v LEFT JOIN strings n ON n.id = v.name LEFT JOIN strings d ON d.id = v.domain;
