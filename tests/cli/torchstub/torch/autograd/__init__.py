"""The C-side profiler entry points (torch._C._autograd in PyTorch), with a per-thread state."""
import os
import threading

_tls = threading.local()
calls = []  # ("enable", state name, report_input_shapes) / ("disable", state name)


class ProfilerState(object):
    class _S(object):
        def __init__(self, name):
            self.name = name

        def __repr__(self):
            return "ProfilerState." + self.name

    NVTX = _S("NVTX")
    KINETO = _S("KINETO")
    Disabled = _S("Disabled")


class _ExperimentalConfig(object):
    pass


class ProfilerConfig(object):
    def __init__(self, state, report_input_shapes, profile_memory, with_stack, with_flops, with_modules,
                 experimental_config, *more):
        if not isinstance(experimental_config, _ExperimentalConfig):
            raise TypeError("ProfilerConfig(): bad experimental_config")
        if os.environ.get("TORCHSTUB_NEW_CONFIG") == "1" and len(more) != 1:
            raise TypeError("ProfilerConfig(): incompatible constructor arguments")  # a later torch's shape
        self.state = state
        self.report_input_shapes = report_input_shapes


def _tls_state():
    return getattr(_tls, "cfg", None)


def _enable_profiler(config, activities, scopes=None):
    if _tls_state() is not None:
        raise RuntimeError("Profiler is already enabled on this thread")
    _tls.cfg = config
    calls.append(("enable", config.state.name, config.report_input_shapes))


def _disable_profiler():
    st = _tls_state()
    if st is None:
        raise RuntimeError("Can't disable Kineto profiler when it's not running")
    _tls.cfg = None
    calls.append(("disable", st.state.name))
    return "result of " + st.state.name


from . import profiler  # noqa: E402,F401
