"""Installed into the Windows Python of the Wine prefix only (scripts/wine/provision.py), never shipped.

Wine 8.0 lacks ``kernel32.CopyFile2``: a call aborts the whole process ("unimplemented function
KERNEL32.dll.CopyFile2"). Python 3.12+ calls it in ``shutil.copy2`` (so ``copytree`` and PyInstaller's
collection of files) only when ``_winapi`` has it; without it shutil copies the data and the metadata
itself, as on a Windows without CopyFile2. So it is taken away here.
"""

import _winapi

if hasattr(_winapi, "CopyFile2"):
    del _winapi.CopyFile2
