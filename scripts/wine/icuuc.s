# A stand-in for Windows 10's system ICU (C:\Windows\System32\icuuc.dll), which Wine 8.0 does not have,
# for the Wine prefix only. Qt 6 (Qt6Core.dll, PySide6) links 20 functions of ICU's charset converters
# from it, used only for legacy encodings (QStringConverter by name: Shift-JIS, Big5...); UTF-8, UTF-16
# and Latin-1 are Qt's own. Without the DLL no Qt program starts ("DLL load failed"). Here no legacy
# converter exists: ucnv_open fails with U_FILE_ACCESS_ERROR, there are 0 converters, and the rest
# (never reached without a converter) return 0. memtray uses no legacy encoding.
# scripts/wine/provision.py assembles it with mingw-w64 binutils into C:\windows\system32.
    .text
    .globl ucnv_open
ucnv_open:                          # UConverter* ucnv_open(const char* name, UErrorCode* err)
    test %rdx, %rdx
    jz 1f
    movl $4, (%rdx)                 # U_FILE_ACCESS_ERROR: "the requested file cannot be found"
1:  xor %eax, %eax
    ret

    .globl ucnv_close, UCNV_FROM_U_CALLBACK_SUBSTITUTE, UCNV_TO_U_CALLBACK_SUBSTITUTE, ucnv_reset
    .globl ucnv_getMaxCharSize, ucnv_getName, ucnv_getToUCallBack, ucnv_getFromUCallBack
    .globl ucnv_setToUCallBack, ucnv_setFromUCallBack, ucnv_cbToUWriteUChars, ucnv_toUnicode
    .globl ucnv_cbFromUWriteUChars, ucnv_toUCountPending, ucnv_fromUCountPending, ucnv_getStandardName
    .globl ucnv_getAvailableName, ucnv_countAvailable, ucnv_fromUnicode
ucnv_close:
UCNV_FROM_U_CALLBACK_SUBSTITUTE:
UCNV_TO_U_CALLBACK_SUBSTITUTE:
ucnv_reset:
ucnv_getMaxCharSize:
ucnv_getName:
ucnv_getToUCallBack:
ucnv_getFromUCallBack:
ucnv_setToUCallBack:
ucnv_setFromUCallBack:
ucnv_cbToUWriteUChars:
ucnv_toUnicode:
ucnv_cbFromUWriteUChars:
ucnv_toUCountPending:
ucnv_fromUCountPending:
ucnv_getStandardName:
ucnv_getAvailableName:
ucnv_countAvailable:                # int32_t ucnv_countAvailable(void): 0
ucnv_fromUnicode:
    xor %eax, %eax
    ret

    .globl DllMain
DllMain:
    mov $1, %eax
    ret
