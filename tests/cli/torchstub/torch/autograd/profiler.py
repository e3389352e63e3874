"""torch.autograd.profiler's module globals and profile(), as PyTorch 2.x has them."""
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
