"""gpudiag's PyTorch instrumentation (docs/framework.md; the ranges are the contract of
FRAMEWORK_CONTRACT.md §2). Loaded by sitecustomize.py right after the program's own
`import torch` has finished; never imported otherwise.

install(torch, mode, say) emits, through torch's own NVTX binding (torch._C._nvtx, which
gpudiag's NVTX injection records):
  * mode "modules" and "ops": a push/pop range around every nn.Module call, message
    "gpudiag.module:<ClassName>:<path>", <path> the dotted name of the module inside the
    outermost module being called on that thread ("" for that outermost module itself);
    global forward pre-hook + forward hook with always_call=True, so a forward that raises
    still pops its range; nothing while Dynamo traces (torch.compiler.is_compiling());
  * mode "ops": PyTorch's own op ranges, as torch.autograd.profiler.emit_nvtx(record_shapes=
    False) makes them ("aten::addmm, seq = 812, op_id = 4410"), enabled on the importing
    thread without emit_nvtx's torch.cuda.synchronize() (which would create a CUDA context at
    import time, before the program chose its device);
  * one nvtxMark "gpudiag.torch:<torch version>:<mode>" (the mode installed), when torch has
    initialised CUDA (before, nothing records NVTX);
  * with stack=N (gpudiag run --python-stack[=N]): for the first N calls of each module (by
    class and path, per process), right after its range is pushed, one nvtxMark
    "gpudiag.src:<line>:<function>:<file>" naming the source line that called the module: the
    first frame outwards that is neither torch's, nor gpudiag's, nor the standard library's,
    nor the module's own __call__ (see _source_of). After N calls of a module, nothing more.
Every hook swallows its own exceptions and never changes an argument or a result.
"""
import os
import sys
import threading
import weakref

_state = {}  # what was installed, for tests and GPUDIAG_TORCH_DEBUG


def install(torch, mode, say, stack=0):
    try:
        from torch._C import _nvtx  # absent in a build of torch without CUDA
        push, pop, mark = _nvtx.rangePushA, _nvtx.rangePop, _nvtx.markA
    except Exception as e:
        say("torch %s has no NVTX binding (%s): nothing to record" % (getattr(torch, "__version__", "?"), e))
        return
    src = None
    if stack > 0:
        try:
            src = _source_of(torch, say)
        except Exception as e:
            say("no source lines: %s: %s" % (type(e).__name__, e))
    mods = _install_modules(torch, push, pop, say, mark if src else None, stack, src)
    ops = mode == "ops" and _install_ops(torch, say)
    got = "ops" if ops else "modules" if mods else None
    _state.update(mode=got, modules=mods, ops=ops)
    if got:
        _mark_when_cuda_starts(torch, mark, "gpudiag.torch:%s:%s" % (torch.__version__, got), say)
        say("installed: %s (torch %s)%s" % (got, torch.__version__, "; the source lines of the first %d calls of each module" % _state["stack"] if _state.get("stack") else ""))


def _mark_when_cuda_starts(torch, mark, msg, say):
    """The mark, emitted once CUDA is initialised: gpudiag's injection library starts recording
    NVTX (CUPTI's marker activity) inside cuInit, so a mark made at `import torch` would be
    lost. torch.cuda._lazy_call runs it right after torch's own CUDA initialisation (at once if
    that happened already); it must never raise there (torch would turn it into the program's
    DeferredCudaCallError)."""

    def emit():
        try:
            mark(msg)
        except Exception:
            pass

    try:
        torch.cuda._lazy_call(emit)
    except Exception as e:
        say("no torch.cuda._lazy_call (%s): marked now" % e)
        emit()


# ---------------------------------------------------------------- module ranges


def _install_modules(torch, push, pop, say, mark=None, stack=0, src=None):
    try:
        from torch.nn.modules import module as M

        is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None)
        if is_compiling is None:
            is_compiling = _never
        pre, post = _module_hooks(M.Module, is_compiling, push, pop, mark, stack, src)
        h1 = M.register_module_forward_pre_hook(pre)
        try:
            # always_call (torch >= 2.1): the post hook runs even when forward raises, so the
            # NVTX stack stays balanced; without it, no module ranges at all
            h2 = M.register_module_forward_hook(post, always_call=True)
        except TypeError:
            h1.remove()
            say("this torch has no always_call for global forward hooks: no module ranges")
            return False
        _state.update(module_hooks=(h1, h2), pre=pre, post=post, stack=stack if mark and src else 0)
        return True
    except Exception as e:
        say("no module ranges: %s: %s" % (type(e).__name__, e))
        return False


def _never():
    return False


def _nothing(*args, **kwargs):
    return None


def _module_hooks(Module, is_compiling, push, pop, mark=None, stack=0, src=None):
    """The two global hooks. Per thread, a stack of (module, path) frames for the modules whose
    range is open; a module's path is found once per (parent path, module) and cached with a
    weak reference to the module (a dead module's entry is dropped, and an id reused by a new
    module is never mistaken for it). With mark, stack > 0 and src (a function of (module,
    frame) giving the "gpudiag.src:..." message or None): the source marks of the first `stack`
    calls of each range message, counted per process in `sampled` (one dict entry per module
    class and path: bounded by the model's size; past the bound a call costs one dict lookup)."""
    tls = threading.local()
    cache = {}  # (parent path or None for an outermost call, id(module)) -> (weakref, path, message)
    sampled = {}  # range message -> calls sampled so far
    if not (mark and src and stack > 0):
        stack = 0
    getframe = sys._getframe

    def forget(key, ref):
        # a weakref callback: an exception here would be printed ("Exception ignored in")
        try:
            e = cache.get(key)
            if e is not None and e[0] is ref:
                cache.pop(key, None)
        except Exception:
            pass

    def entry(key, mod, path):
        ref = weakref.ref(mod, lambda r, k=key: forget(k, r))
        e = cache[key] = (ref, path, "gpudiag.module:%s:%s" % (type(mod).__name__, path))
        return e

    def pre(mod, args):
        if is_compiling():  # first: Dynamo inlines this hook and folds the call to True
            return None
        try:
            try:
                st = tls.s
            except AttributeError:
                st = tls.s = []
            key = (st[-1][1] if st else None, id(mod))
            e = cache.get(key)
            if e is None or e[0]() is not mod:
                e = entry(key, mod, _path_of(mod, st) if st else "")
            push(e[2])
            st.append((mod, e[1]))
            if stack:
                # after the push: the mark lies inside this module's range on this thread
                c = sampled.get(e[2], 0)
                if c < stack:
                    sampled[e[2]] = c + 1
                    msg = src(mod, getframe(1))
                    if msg:
                        mark(msg)
        except Exception:
            pass
        return None

    def post(mod, args, out):
        if is_compiling():
            return None
        try:
            st = tls.s
            if st and st[-1][0] is mod:
                st.pop()
                pop()
            elif any(f[0] is mod for f in st):
                # frames above it whose post hook never ran (an exception that is not an
                # Exception, such as KeyboardInterrupt, skips always_call hooks): close them
                while st:
                    f = st.pop()
                    pop()
                    if f[0] is mod:
                        break
        except Exception:
            pass
        return None

    pre.sampled = sampled  # for tests and GPUDIAG_TORCH_DEBUG
    return pre, post


def _join(parent, name):
    return name if not parent else parent + "." + name


def _path_of(mod, st):
    """The dotted path of mod called while st[-1] is open: its name in that module when it is
    a direct child there (so a module shared by two parents is named by the one calling it),
    else its name in the outermost module (the one under the caller's path if it has several),
    else "<caller path>.(<ClassName>)" for a module registered nowhere under the outermost one
    (held in a plain list, or made on the fly)."""
    parent, ppath = st[-1]
    children = getattr(parent, "_modules", None) or {}
    for name, m in children.items():
        if m is mod:
            return _join(ppath, name)
    root = st[0][0]
    try:
        named = root.named_modules(remove_duplicate=False)
    except TypeError:
        named = root.named_modules()
    found = [n for n, m in named if m is mod]
    if found:
        under = [n for n in found if ppath and n.startswith(ppath + ".")]
        return (under or found)[0]
    return _join(ppath, "(%s)" % type(mod).__name__)


# ---------------------------------------------------------------- source lines (--python-stack)

SRC_PREFIX = "gpudiag.src:"
MAX_FRAMES = 200  # a deeper walk finds nothing (recursion); it stops there


def _dirs(paths):
    """Each folder as given (absolute) and with its links resolved, with a trailing separator,
    so a prefix test matches whole components ("/x/torch/" not "/x/torchvision/...")."""
    out = set()
    for p in paths:
        if not p:
            continue
        for q in (os.path.abspath(p), os.path.realpath(p)):
            out.add(q.rstrip(os.sep) + os.sep)
    return tuple(sorted(out))


def _source_of(torch, say):
    """The function (module, frame) -> "gpudiag.src:<line>:<function>:<file>" or None that the
    pre-hook calls for a sampled module call, frame being the hook's caller. It walks outwards
    (f_back) to the first frame that is the user's: not in torch's folder (nn.Module.__call__,
    torch.compile's wrappers, torch.utils.checkpoint), not in gpudiag's Python folder, not in
    the standard library (sysconfig's stdlib and platstdlib, except site-packages and
    dist-packages, which a non-virtual-environment Python keeps inside its stdlib folder), not a
    frozen module ("<frozen ...>"), and not a __call__ defined by the module's own class (a
    model library's __call__ override that calls nn.Module.__call__, as transformers'
    GradientCheckpointingLayer does: the line wanted is the one that called the module). Each
    file's verdict is cached by its name (co_filename), so a walk is a few dictionary lookups.
    <line> is the frame's current line (the call), <function> its co_qualname (co_name before
    Python 3.11) with any ':' as '_', <file> its co_filename as Python has it, last, so that it
    may hold ':' itself."""
    import sysconfig

    try:
        import site

        sites = list(site.getsitepackages()) + [site.getusersitepackages()]
    except Exception:  # a virtual environment's older site module
        sites = []
    paths = sysconfig.get_paths()
    sites += [paths.get("purelib"), paths.get("platlib")]
    skip = _dirs([os.path.dirname(getattr(torch, "__file__", "") or "") or None, os.path.dirname(os.path.abspath(__file__))])
    stdlib = _dirs([paths.get("stdlib"), paths.get("platstdlib")])
    keep = _dirs(sites)
    verdict = {}  # co_filename -> True: the user's
    calls = {}  # module class -> the code objects of the __call__s its classes define
    say("source lines: skipping %s and the standard library %s (not %s)" % (list(skip), list(stdlib), list(keep)))

    def user_file(fn):
        if fn.startswith("<"):
            return not fn.startswith("<frozen")  # "<string>", "<stdin>", a notebook's cell: the user's
        for p in {os.path.abspath(fn), os.path.realpath(fn)}:
            if p.startswith(skip):
                return False
            if p.startswith(stdlib) and not p.startswith(keep):
                return False
        return True

    def own_calls(cls):
        codes = set()
        for c in cls.__mro__:
            fn = c.__dict__.get("__call__")
            code = getattr(fn, "__code__", None)
            if code is not None:
                codes.add(code)
        calls[cls] = codes
        return codes

    def where(mod, f):
        cls = type(mod)
        mine = calls.get(cls)
        if mine is None:
            mine = own_calls(cls)
        n = 0
        while f is not None and n < MAX_FRAMES:
            code = f.f_code
            fn = code.co_filename
            u = verdict.get(fn)
            if u is None:
                u = verdict[fn] = user_file(fn)
            if u and code not in mine:
                func = getattr(code, "co_qualname", None) or code.co_name
                return "%s%d:%s:%s" % (SRC_PREFIX, f.f_lineno or 0, func.replace(":", "_"), fn)
            f = f.f_back
            n += 1
        return None

    where.verdict = verdict
    return where


# ---------------------------------------------------------------- op ranges (emit_nvtx)


def _install_ops(torch, say):
    """PyTorch's NVTX op ranges, process-wide as far as PyTorch allows: its NVTX observer is a
    thread-local RecordFunction callback, enabled here on the thread that imported torch;
    autograd's worker threads inherit it for the backward pass. A profiler the program starts
    itself on that thread (torch.profiler, emit_nvtx) would find this one running and refuse,
    so torch.autograd.profiler's enable/disable are wrapped: ours steps aside while the
    program's runs and comes back after it."""
    try:
        import torch.autograd.profiler as P
        import torch.autograd as A

        real_enable, real_disable = P._enable_profiler, P._disable_profiler
        real_start = getattr(P, "_run_on_profiler_start", None)
        real_stop = getattr(P, "_run_on_profiler_stop", None)
    except Exception as e:
        say("no op ranges: %s: %s" % (type(e).__name__, e))
        return False
    try:
        # emit_nvtx's own call (torch 1.13 to 2.x): ProfilerConfig(state, report_input_shapes,
        # profile_memory, with_stack, with_flops, with_modules, experimental_config)
        cfg = P.ProfilerConfig(P.ProfilerState.NVTX, False, False, False, False, False, P._ExperimentalConfig())
        real_enable(cfg, set())
        if real_start:
            real_start()  # what emit_nvtx does: Python-side checks see a profiler on
    except Exception as e:
        # a torch whose ProfilerConfig has another shape: emit_nvtx itself, with its
        # torch.cuda.synchronize() made a no-op for that one call (no CUDA context at import)
        say("ProfilerConfig as emit_nvtx makes it failed (%s: %s); entering emit_nvtx itself" % (type(e).__name__, e))
        cfg = None
        try:
            sync = torch.cuda.synchronize
            torch.cuda.synchronize = _nothing
            try:
                P.emit_nvtx(record_shapes=False).__enter__()
            finally:
                torch.cuda.synchronize = sync
        except Exception as e2:
            say("no op ranges: %s: %s" % (type(e2).__name__, e2))
            return False
    if cfg is None:
        _state.update(ops_state=None)
        return True  # on, but not wrapped: a program's own profiler on this thread would refuse

    st = {"thread": threading.get_ident(), "on": True, "aside": False}

    def ours_here():
        return threading.get_ident() == st["thread"]

    def _enable_profiler(*a, **k):
        if st["on"] and ours_here():
            try:
                real_disable()
                st["on"], st["aside"] = False, True
            except Exception:
                pass
        try:
            return real_enable(*a, **k)
        except BaseException:
            come_back()
            raise

    def come_back():
        if st["aside"] and ours_here():
            try:
                real_enable(cfg, set())
                st["on"], st["aside"] = True, False
                if real_start:
                    real_start()
            except Exception:
                pass

    def _disable_profiler(*a, **k):
        r = real_disable(*a, **k)
        come_back()
        return r

    def _run_on_profiler_stop(*a, **k):
        r = real_stop(*a, **k)
        if st["on"] and real_start:
            real_start()  # ours is still on: keep the flag emit_nvtx would keep
        return r

    P._enable_profiler, P._disable_profiler = _enable_profiler, _disable_profiler
    if getattr(A, "_enable_profiler", None) is real_enable:
        A._enable_profiler = _enable_profiler
    if getattr(A, "_disable_profiler", None) is real_disable:
        A._disable_profiler = _disable_profiler
    if real_stop:
        P._run_on_profiler_stop = _run_on_profiler_stop
    _state.update(ops_state=st, ops_config=cfg)
    return True
