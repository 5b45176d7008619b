"""What a card or a calibration says about the machine: the timing fields depend on it."""

from __future__ import annotations

import os
import platform
from typing import Any

import numpy as np

from parlour._version import __version__


def cpu_name() -> str:
    """The processor's model name (Linux's /proc/cpuinfo; ``platform.processor()`` elsewhere)."""
    try:
        with open("/proc/cpuinfo") as stream:
            for line in stream:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    return {
        "cpu": cpu_name(),
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "parlour": __version__,
    }
