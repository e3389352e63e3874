"""torch.autograd.profiler's module globals, profile() and emit_nvtx(), as PyTorch 2.x has them."""
import os

import torch
from torch.autograd import (  # noqa: F401
    ProfilerConfig,
    ProfilerState,
    _ExperimentalConfig,
    _disable_profiler,
    _enable_profiler,
)

_is_profiler_enabled = False


def _set_is_profiler_enabled(enable):
    global _is_profiler_enabled
    _is_profiler_enabled = enable


def _run_on_profiler_start():
    _set_is_profiler_enabled(True)


def _run_on_profiler_stop():
    _set_is_profiler_enabled(False)


class profile(object):
    def __enter__(self):
        _run_on_profiler_start()
        _enable_profiler(ProfilerConfig(ProfilerState.KINETO, False, False, False, False, False,
                                        _ExperimentalConfig()), set())
        return self

    def __exit__(self, *exc):
        self.result = _disable_profiler()
        _run_on_profiler_stop()
        return False


class emit_nvtx(object):
    def __init__(self, enabled=True, record_shapes=False):
        self.record_shapes = record_shapes

    def __enter__(self):
        torch.cuda.synchronize()
        _run_on_profiler_start()
        more = (None,) if os.environ.get("TORCHSTUB_NEW_CONFIG") == "1" else ()
        _enable_profiler(ProfilerConfig(ProfilerState.NVTX, self.record_shapes, False, False, False, False,
                                        _ExperimentalConfig(), *more), set())
        return self

    def __exit__(self, *exc):
        torch.cuda.synchronize()
        _disable_profiler()
        _run_on_profiler_stop()
        return False
