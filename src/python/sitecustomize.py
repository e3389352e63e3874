"""gpudiag's Python entry point: `gpudiag run` puts this folder first on PYTHONPATH, so Python's
site module imports this file at start-up, before the program runs (docs/framework.md).

What it does, in this order, and nothing else:
  1. when GPUDIAG_TORCH is "modules" or "ops": puts a finder on sys.meta_path that waits for the
     program's own `import torch` and, once torch has finished importing, asks _gpudiag_torch
     (beside this file) to instrument it (with GPUDIAG_PYTHON_STACK=N, a whole number 1 to
     1000: the source lines of the first N calls of each module too). torch is never imported from here: a program that
     does not use torch pays for this file and one string comparison per import, no more;
  2. runs the sitecustomize this file hides (the next one on sys.path: a distribution's, a
     virtual environment's, the user's), as Python would have without gpudiag.

It never prints (unless GPUDIAG_TORCH_DEBUG=1, on stderr) and swallows every exception of its
own; an exception of the chained sitecustomize propagates to site.py, which reports it exactly
as it would have without gpudiag.
"""


def _gpudiag_boot():
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    debug = os.environ.get("GPUDIAG_TORCH_DEBUG") == "1"

    def say(msg):
        if debug:
            try:
                sys.stderr.write("gpudiag.torch: %s\n" % msg)
            except Exception:
                pass

    def instrument(torch, mode):
        # runs when torch has finished importing (inside the program's `import torch`)
        try:
            # loaded from this folder by its path: whatever the program did to sys.path
            import importlib.util

            spec = importlib.util.spec_from_file_location("_gpudiag_torch", os.path.join(here, "_gpudiag_torch.py"))
            impl = importlib.util.module_from_spec(spec)
            sys.modules["_gpudiag_torch"] = impl
            spec.loader.exec_module(impl)
            impl.install(torch, mode, say, stack)
        except Exception as e:  # never the program's problem
            say("not instrumented: %s: %s" % (type(e).__name__, e))

    class GpudiagTorchFinder(object):
        """Finds nothing itself: asks the finders after it for torch's spec and arranges for
        instrument() to run right after torch's module body has executed."""

        busy = False

        def find_spec(self, name, path=None, target=None):
            if name != "torch" or self.busy:
                return None
            try:
                self.busy = True
                spec = None
                for finder in list(sys.meta_path):
                    if finder is self:
                        continue
                    fs = getattr(finder, "find_spec", None)
                    if fs is None:
                        continue
                    spec = fs(name, path, target)
                    if spec is not None:
                        break
                if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
                    return spec  # whatever it is, it is the program's: unchanged
                self.wrap(spec.loader)
                return spec
            except Exception as e:
                say("could not watch the import of torch: %s" % e)
                return None
            finally:
                self.busy = False

        def wrap(self, loader):
            # An attribute on this one loader instance (torch's own) shadows its class's
            # exec_module for this import only; torch.__loader__ stays the real loader.
            real = loader.exec_module
            finder = self

            def exec_module(module):
                try:
                    real(module)  # torch's own import: its exceptions are the program's
                finally:
                    try:
                        del loader.exec_module
                    except Exception:
                        pass
                try:
                    sys.meta_path.remove(finder)
                except ValueError:
                    pass
                instrument(module, mode)

            loader.exec_module = exec_module

    mode = os.environ.get("GPUDIAG_TORCH", "")
    stack = os.environ.get("GPUDIAG_PYTHON_STACK", "")
    try:
        stack = int(stack) if stack.isdigit() and len(stack) <= 4 else 0
        if not 0 <= stack <= 1000:
            stack = 0
    except Exception:
        stack = 0
    try:
        if mode in ("modules", "ops"):
            if "torch" in sys.modules:  # cannot happen at start-up; handled all the same
                instrument(sys.modules["torch"], mode)
            else:
                sys.meta_path.insert(0, GpudiagTorchFinder())
                say("waiting for torch (mode %s)" % mode)
        elif mode not in ("", "off"):
            say("GPUDIAG_TORCH=%r is not off, modules or ops: nothing done" % mode)
    except Exception as e:
        say("not installed: %s" % e)

    # ---- the sitecustomize this one hides: the next on sys.path, outside this folder
    spec = None
    try:
        import importlib.machinery

        # abspath, not realpath: no system call per entry (realpath cost 160 us here); gpudiag
        # puts this folder on PYTHONPATH as an absolute path without links
        rest = [p for p in sys.path if isinstance(p, str) and os.path.abspath(p or ".") != here]
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    except Exception as e:
        say("could not look for another sitecustomize: %s" % e)
    if spec is None or spec.loader is None:
        return
    import importlib.util

    mod = importlib.util.module_from_spec(spec)
    ours = sys.modules.get("sitecustomize")
    sys.modules["sitecustomize"] = mod  # `import sitecustomize` gives the program's own
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        if ours is not None:
            sys.modules["sitecustomize"] = ours
        raise  # site.py reports it, as it would have without gpudiag
    say("ran %s" % spec.origin)


_gpudiag_boot()
del _gpudiag_boot
