; NSIS 3 script for memtray's Windows installer: a per-user install (no administrator rights) of the
; PyInstaller folder dist\windows\memtray (memtray.exe, the tray app; memtray-cli.exe, the command line).
;
; Built on Linux by installer/windows/build.py (makensis from Debian's nsis package):
;   makensis -DVERSION=0.1.0 -DDIST=<folder of memtray.exe> -DICON=<memtray.ico> -DOUTFILE=<setup.exe> \
;            installer/windows/memtray.nsi
; Installed, used and uninstalled under Wine by tests/e2e/test_windows_installer.py.
;
; What it does:
; - installs the folder into %LOCALAPPDATA%\Programs\memtray (RequestExecutionLevel user);
; - a Start menu entry (memtray.lnk) for memtray.exe;
; - the optional "Start at login" component (off unless chosen, or /AUTOSTART on the command line):
;   HKCU\...\Run value "memtray" = "<install>\memtray.exe", the value the app's own "Start at login"
;   setting writes (desktop/autostart.py, RunKeyAutostart), so either can undo the other;
; - an entry in Apps & features (HKCU\...\Uninstall\memtray) and uninstall.exe.
; The uninstaller asks a running memtray to quit (memtray.exe --quit), then removes the program, the
; Start menu entry, the Run value and the Apps & features entry. The data (%LOCALAPPDATA%\memtray) and
; the key in Windows Credential Manager are kept.
; Silent: setup.exe /S [/AUTOSTART] [/D=folder] and uninstall.exe /S.

Target amd64-unicode  ; a 64-bit installer for a 64-bit program (and Wine without 32-bit support runs it)
!include "MUI2.nsh"
!include "FileFunc.nsh"

!ifndef VERSION
  !define VERSION "0.1.0"
!endif
!ifndef DIST
  !define DIST "..\..\dist\windows\memtray"
!endif
!ifndef OUTFILE
  !define OUTFILE "..\..\dist\memtray-${VERSION}-windows-x64-setup.exe"
!endif
!define APP "memtray"
!define RUN_KEY "Software\Microsoft\Windows\CurrentVersion\Run"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\memtray"

Name "${APP} ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${APP}"
RequestExecutionLevel user
!ifndef COMPRESSOR
  !define COMPRESSOR "lzma"  ; the smallest; `zlib` builds several times faster (CI's test build)
!endif
SetCompressor /SOLID ${COMPRESSOR}
ShowInstDetails nevershow
ShowUninstDetails nevershow
BrandingText "${APP} ${VERSION}"

!ifndef ICON
  !define ICON "..\..\build\windows\memtray.ico"
!endif
!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_COMPONENTSPAGE_NODESC
!define MUI_FINISHPAGE_RUN "$INSTDIR\memtray.exe"
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Section "memtray" SecProgram
  SectionIn RO
  ; an older install's running app would hold its files open
  IfFileExists "$INSTDIR\memtray.exe" 0 +2
    ExecWait '"$INSTDIR\memtray.exe" --quit'
  SetOutPath "$INSTDIR"
  File /r "${DIST}\*"
  CreateShortCut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\memtray.exe"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "${APP}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\memtray.exe"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "EstimatedSize" $0
SectionEnd

Section /o "Start memtray when I sign in" SecAutostart
  WriteRegStr HKCU "${RUN_KEY}" "${APP}" '"$INSTDIR\memtray.exe"'
SectionEnd

Function .onInit
  ${GetParameters} $0
  ClearErrors
  ${GetOptions} $0 "/AUTOSTART" $1
  IfErrors +2
    SectionSetFlags ${SecAutostart} ${SF_SELECTED}
FunctionEnd

Section "Uninstall"
  ExecWait '"$INSTDIR\memtray.exe" --quit'
  ; the Run value may come from this installer or from the app's own setting: remove it if it starts
  ; this install (the app writes the quoted path, maybe with --home; the value is left if it points
  ; elsewhere)
  ReadRegStr $0 HKCU "${RUN_KEY}" "${APP}"
  StrLen $1 '"$INSTDIR\memtray.exe"'
  StrCpy $2 $0 $1
  StrCmp $2 '"$INSTDIR\memtray.exe"' 0 +2
    DeleteRegValue HKCU "${RUN_KEY}" "${APP}"
  Delete "$SMPROGRAMS\${APP}.lnk"
  RMDir /r "$INSTDIR"
  DeleteRegKey HKCU "${UNINSTALL_KEY}"
SectionEnd
