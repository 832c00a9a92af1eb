from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class GPUTarget:
    backend: str
    arch: Union[int, str]
    warp_size: int
