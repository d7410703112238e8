"""The GPU verifier: probes that confirm or refute hardware claims on a real device, and the
evidence they leave in the repository (`evidence/gpu/`), which audits without a GPU read.

probes.py   the registry: cases, controls, verdicts
backends.py the CPU reference backend (numpy, ml_dtypes), which the tests run everywhere
cuda.py     the CUDA backend: explicit PTX through CuPy, and PyTorch (imported only here)
evidence.py records, appended as JSON Lines per device class and probe

Imported only by `qbank gpu` and by the audit when a question makes a device claim.
"""
