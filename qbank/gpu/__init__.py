"""The GPU verifier: probes that confirm or refute hardware claims on a real device, and the
evidence they leave in the repository (`evidence/gpu/`), which audits without a GPU read.

probes.py    the registry: cases, controls, verdicts
backends.py  the CPU reference backend (numpy, ml_dtypes), which the tests run everywhere
torch_ops.py PyTorch on one device, bit-exact, and the torch-on-CPU backend
cuda.py      the CUDA backend: explicit PTX through CuPy, and PyTorch through torch_ops
evidence.py  records, appended as JSON Lines per device class and probe

torch and CuPy are imported only when a backend that needs them is made.

Imported only by `qbank gpu` and by the audit when a question makes a device claim.
"""
