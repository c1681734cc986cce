"""tilelang.env: TileLang's environment settings, read live from os.environ, and the
ones tilec acts on:

* TILELANG_DISABLE_CACHE=1, or tilelang.disable_cache(): compile without libtilec's disk
  cache (as use_cache=False);
* TILELANG_CACHE_DIR: libtilec's cache directory for kernels compiled through this layer
  (TILEC_CACHE_DIR, when set, wins: it is libtilec's own setting);
* TILELANG_PRINT_ON_COMPILATION (default 1, as in TileLang): log each compile on the
  "tilelang" logger (INFO, printed to stderr).
Reading another variable gives its value or TileLang's default; it has no effect."""
import os


class EnvVar:
    """One variable: its live value from os.environ, else the default; assigning
    forces a value (TileLang's tests do) until set to None."""

    def __init__(self, key, default):
        self.key = key
        self.default = default
        self._forced = None

    def get(self):
        if self._forced is not None:
            return self._forced
        if self.key in os.environ:
            return os.environ[self.key]
        return self.default() if callable(self.default) else self.default

    def __get__(self, instance, owner):
        return self if instance is None else self.get()

    def __set__(self, instance, value):
        self._forced = value


def _on(value):
    return str(value).strip().lower() in ("1", "true", "yes", "on")


class CacheState:
    _enabled = True

    @classmethod
    def enable(cls):
        cls._enabled = True

    @classmethod
    def disable(cls):
        cls._enabled = False

    @classmethod
    def is_enabled(cls):
        return cls._enabled


class Environment:
    TILELANG_CACHE_DIR = EnvVar("TILELANG_CACHE_DIR", os.path.expanduser("~/.tilelang/cache"))
    TILELANG_TMP_DIR = EnvVar("TILELANG_TMP_DIR",
                              lambda: os.path.join(Environment.TILELANG_CACHE_DIR.get(), "tmp"))
    TILELANG_PRINT_ON_COMPILATION = EnvVar("TILELANG_PRINT_ON_COMPILATION", "1")
    TILELANG_DISABLE_CACHE = EnvVar("TILELANG_DISABLE_CACHE", "0")
    TILELANG_AUTO_TUNING_DISABLE_CACHE = EnvVar("TILELANG_AUTO_TUNING_DISABLE_CACHE", "0")
    TILELANG_AUTO_TUNING_CPU_UTILITIES = EnvVar("TILELANG_AUTO_TUNING_CPU_UTILITIES", "0.9")
    TILELANG_AUTO_TUNING_CPU_COUNTS = EnvVar("TILELANG_AUTO_TUNING_CPU_COUNTS", "-1")
    TILELANG_AUTO_TUNING_MAX_CPU_COUNT = EnvVar("TILELANG_AUTO_TUNING_MAX_CPU_COUNT", "-1")
    TILELANG_DEFAULT_TARGET = EnvVar("TILELANG_DEFAULT_TARGET", "auto")
    TILELANG_DEFAULT_EXECUTION_BACKEND = EnvVar("TILELANG_EXECUTION_BACKEND", "auto")
    TILELANG_DEFAULT_VERBOSE = EnvVar("TILELANG_VERBOSE", "0")
    TILELANG_CLEANUP_TEMP_FILES = EnvVar("TILELANG_CLEANUP_TEMP_FILES", "1")
    TILELANG_PASS_DIFF = EnvVar("TILELANG_PASS_DIFF", "0")
    TILELANG_JIT_DIAGNOSTICS = EnvVar("TILELANG_JIT_DIAGNOSTICS", "0")
    CUDA_HOME = EnvVar("CUDA_HOME", lambda: os.environ.get("CUDA_PATH", "/usr/local/cuda"))

    def is_cache_globally_disabled(self):
        return _on(self.TILELANG_DISABLE_CACHE)

    def is_cache_enabled(self):
        return not self.is_cache_globally_disabled() and CacheState.is_enabled()

    def enable_cache(self):
        CacheState.enable()

    def disable_cache(self):
        CacheState.disable()

    def is_autotune_cache_disabled(self):
        return _on(self.TILELANG_AUTO_TUNING_DISABLE_CACHE)

    def is_print_on_compilation_enabled(self):
        return _on(self.TILELANG_PRINT_ON_COMPILATION)

    def get_default_target(self):
        return self.TILELANG_DEFAULT_TARGET

    def get_default_execution_backend(self):
        return self.TILELANG_DEFAULT_EXECUTION_BACKEND

    def get_default_verbose(self):
        return _on(self.TILELANG_DEFAULT_VERBOSE)

    def cache_dir_override(self):
        """The cache directory for this layer's compiles: None (libtilec's own choice)
        when TILEC_CACHE_DIR or no TILELANG_CACHE_DIR is set."""
        if os.environ.get("TILEC_CACHE_DIR"):
            return None
        if Environment.TILELANG_CACHE_DIR._forced is not None:
            return str(Environment.TILELANG_CACHE_DIR._forced)
        return os.environ.get("TILELANG_CACHE_DIR") or None


env = Environment()


def enable_cache():
    env.enable_cache()


def disable_cache():
    env.disable_cache()


def is_cache_enabled():
    return env.is_cache_enabled()
