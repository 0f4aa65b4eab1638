/**
 * The Python side of the sandbox, run once in each worker's Pyodide after it loads. It defines
 * `_keel_run(request_json) -> reply_json`, which checks and runs one `code` node's source the way
 * the origin's fallback sandbox does (runtime-nodes §4): the static checks and their texts, the
 * limited builtins, the error texts. Extra checks of our own (frame and code introspection
 * attributes, which lead from a generator back to the real builtins) come after the origin's.
 * A `KeyboardInterrupt` is the pool's time budget (written into the worker's interrupt buffer).
 */
export const PYTHON_DRIVER = String.raw`
import ast as _ast
import builtins as _real_builtins
import json as _json
import sys as _sys

_ORIGIN_BUILTINS = ("len", "str", "int", "float", "bool", "list", "dict", "tuple", "set", "range",
    "enumerate", "zip", "map", "filter", "sorted", "reversed", "min", "max", "sum", "abs", "round",
    "isinstance", "type")

# Attributes that reach frames, code objects or tracebacks: from there a caller's globals hold the
# real builtins. Not in the origin's check (it has no sandbox boundary to keep); refused here.
_INTROSPECTION = frozenset(("gi_frame", "gi_code", "gi_yieldfrom", "gi_suspended", "cr_frame", "cr_code",
    "cr_await", "cr_origin", "ag_frame", "ag_code", "ag_await", "f_back", "f_globals", "f_locals",
    "f_builtins", "f_code", "f_trace", "tb_frame", "tb_next", "co_code", "co_consts", "co_names",
    "func_globals", "func_code", "im_func", "im_self"))

_BANNED_CALLS = ("exec", "eval", "compile", "__import__")


def _noop_print(*args, **kwargs):
    return None


class _SandboxTypeMeta(type):
    """The sandbox's type: type(x) as usual, but no new classes. A class made with type(name,
    bases, dict) can carry __match_args__ or __instancecheck__, and a class pattern then reads any
    attribute of any object (a function's __globals__, hence the real builtins). Classes answer this
    type rather than their metaclass, which would make classes too."""

    def __call__(cls, *args, **kwargs):
        if len(args) != 1 or kwargs:
            raise TypeError("type() takes exactly one argument in the sandbox (no new classes)")
        found = _real_builtins.type(args[0])
        return cls if issubclass(found, _real_builtins.type) else found

    def __instancecheck__(cls, value):
        return isinstance(value, _real_builtins.type)

    def __subclasscheck__(cls, value):
        return issubclass(value, _real_builtins.type)

    # Shared by every call of every account, as the real type is: nothing may be set on it.
    def __setattr__(cls, name, value):
        raise TypeError("cannot set '%s' attribute of immutable type 'type'" % name)

    def __delattr__(cls, name):
        raise TypeError("cannot delete '%s' attribute of immutable type 'type'" % name)


_SandboxType = _SandboxTypeMeta("type", (), {})


def _sandbox_builtins():
    allowed = {name: getattr(_real_builtins, name) for name in _ORIGIN_BUILTINS}
    allowed["type"] = _SandboxType
    allowed.update({"print": _noop_print, "True": True, "False": False, "None": None})
    return allowed


def _static_error(source, sandboxed):
    try:
        tree = _ast.parse(source)
    except SyntaxError as exc:
        return "Syntax error: %s" % (exc,)
    if not sandboxed:
        return None
    for node in _ast.walk(tree):
        if isinstance(node, (_ast.Import, _ast.ImportFrom)):
            return "Imports are not allowed"
        if isinstance(node, _ast.Call) and isinstance(node.func, _ast.Name) and node.func.id in _BANNED_CALLS:
            return "'%s' is not allowed" % node.func.id
        # A class pattern ("case F(__globals__=g)") reads attributes by name too, with no Attribute node.
        names = [node.attr] if isinstance(node, _ast.Attribute) else node.kwd_attrs if isinstance(node, _ast.MatchClass) else []
        for name in names:
            if name.startswith("__") and name.endswith("__"):
                return "Access to dunder attributes ('%s') is not allowed" % name
            if name in _INTROSPECTION:
                return "Access to the attribute '%s' is not allowed in the sandbox" % name
    return None


def _json_default(value):
    if isinstance(value, (set, frozenset)):
        return list(value)
    return str(value)


def _failure(message, **extra):
    reply = {"ok": False, "error": message}
    reply.update(extra)
    return _json.dumps(reply)


def _keel_run(request_json):
    request = _json.loads(request_json)
    source = request["source"]
    name = request["function_name"]
    sandboxed = request["mode"] == "sandbox"
    problem = _static_error(source, sandboxed)
    if problem:
        return _failure(problem)
    scope = {"__builtins__": _sandbox_builtins() if sandboxed else _real_builtins, "__name__": "keel_code"}
    try:
        exec(compile(source, "<code>", "exec"), scope)
    except KeyboardInterrupt:
        return _failure("", timeout=True)
    except MemoryError:
        return _failure("Execution error: the code needed more memory than its budget", memory=True)
    except BaseException as exc:
        return _failure("Execution error: %s" % (exc,))
    function = scope.get(name)
    if function is None:
        return _failure("Function '%s' not defined in code" % name)
    if not callable(function):
        return _failure("'%s' is not a callable function" % name)
    try:
        value = function(_json.loads(request["input_json"]))
    except KeyboardInterrupt:
        return _failure("", timeout=True)
    except MemoryError:
        return _failure("Runtime error: the code needed more memory than its budget", memory=True)
    except RecursionError as exc:
        return _failure("Runtime error: %s" % (exc,))
    except BaseException as exc:
        return _failure("Runtime error: %s" % (exc,))
    try:
        text = _json.dumps(value, default=_json_default, ensure_ascii=False, allow_nan=False)
    except KeyboardInterrupt:
        return _failure("", timeout=True)
    except MemoryError:
        return _failure("Runtime error: the code's result needed more memory than its budget", memory=True)
    except BaseException as exc:
        return _failure("Runtime error: the result cannot be stored as JSON: %s" % (exc,))
    limit = request["max_output_chars"]
    if len(text) > limit:
        return _failure("Runtime error: the code returned %d characters of JSON, more than the %d the host allows (the code plugin's maxOutputChars)" % (len(text), limit))
    return '{"ok": true, "value": ' + text + '}'
`;

/**
 * Run after the driver is defined: Python loses every way back to JavaScript. The `js` and
 * `pyodide_js` modules are unregistered, Pyodide's own Python packages dropped from
 * `sys.modules`, and a finder refuses to import them again (full_access code can import).
 */
export const PYTHON_LOCKDOWN = String.raw`
import sys as _sys

class _KeelRefuseJs:
    _names = ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "pyodide_http", "micropip", "_pyodide_importhook")

    def find_spec(self, fullname, path=None, target=None):
        root = fullname.split(".")[0]
        if root in self._names:
            raise ImportError("module '%s' is not available in the sandbox" % fullname)
        return None

for _name in list(_sys.modules):
    if _name.split(".")[0] in _KeelRefuseJs._names:
        del _sys.modules[_name]
_sys.meta_path.insert(0, _KeelRefuseJs())
del _name
`;
