"""A Windows CPython under Wine with memtray's Windows wheels, for running memtray as Windows runs it.

- ``python -m scripts.wine.provision``: makes (or checks) the Wine prefix, outside the repository.
- ``python -m scripts.wine.run ARGS…``: runs the Windows ``python.exe ARGS…`` in it (``make windows-test``).
"""
