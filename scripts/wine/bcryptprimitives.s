# A stand-in for Windows' bcryptprimitives.dll, which Wine 8.0 does not have, for the Wine prefix only.
# Programs built with Rust 1.78 or newer (pydantic-core, rpds-py, cryptography here) import one function
# from it, ProcessPrng(buffer, length) -> TRUE; without the DLL they fail to load ("DLL load failed:
# Module not found"). This one fills the buffer with advapi32's RtlGenRandom (SystemFunction036), the
# system's cryptographic random source, and returns TRUE as ProcessPrng always does.
# scripts/wine/provision.py assembles it with mingw-w64 binutils into C:\windows\system32.
    .text
    .globl ProcessPrng
ProcessPrng:                        # BOOL ProcessPrng(PBYTE rcx, SIZE_T rdx)
    sub $40, %rsp                   # shadow space, stack kept 16-byte aligned
    call *__imp_SystemFunction036(%rip)  # BOOLEAN RtlGenRandom(PVOID rcx, ULONG edx)
    mov $1, %eax
    add $40, %rsp
    ret

    .globl DllMain
DllMain:                            # BOOL DllMain(HINSTANCE, DWORD, LPVOID): nothing to set up
    mov $1, %eax
    ret
