"""Triton's knobs as far as the listener goes: compilation.listener, one
slot, a plain class attribute defaulting to None (no environment variable),
and the frozen CompileTimes dataclass; cache.dir as TRITON_CACHE_DIR."""

import os
from dataclasses import dataclass
from typing import List, Tuple


@dataclass(frozen=True)
class CompileTimes:
    """All times in microseconds."""

    ir_initialization: int
    lowering_stages: List[Tuple[str, int]]
    store_results: int

    @property
    def total_lowering(self) -> int:
        return sum(stage[1] for stage in self.lowering_stages)

    @property
    def total(self) -> int:
        return self.ir_initialization + self.total_lowering + self.store_results


class base_knobs:
    def copy(self):
        res = type(self)()
        res.__dict__.update(self.__dict__)
        return res


class cache_knobs(base_knobs):
    @property
    def dir(self):
        home = os.environ.get("TRITON_HOME") or os.path.expanduser("~")
        return os.environ.get("TRITON_CACHE_DIR") or os.path.join(home, ".triton", "cache")


class compilation_knobs(base_knobs):
    listener = None


cache = cache_knobs()
compilation = compilation_knobs()
