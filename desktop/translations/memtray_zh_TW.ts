<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_TW">
<context>
    <name></name>
    <message>
        <source>API error or synthetic message</source>
        <translation>API 錯誤或合成訊息</translation>
    </message>
    <message>
        <source>assistant call to a tool</source>
        <translation>助理的工具呼叫</translation>
    </message>
    <message>
        <source>tool call or result</source>
        <translation>工具呼叫或結果</translation>
    </message>
    <message>
        <source>attachment (file not imported)</source>
        <translation>附件（檔案未匯入）</translation>
    </message>
    <message>
        <source>file (not imported)</source>
        <translation>檔案（未匯入）</translation>
    </message>
    <message>
        <source>image (not imported)</source>
        <translation>圖片（未匯入）</translation>
    </message>
    <message>
        <source>image or document (not imported)</source>
        <translation>圖片或文件（未匯入）</translation>
    </message>
    <message>
        <source>image or file part</source>
        <translation>圖片或檔案部分</translation>
    </message>
    <message>
        <source>non-text content part (image, file)</source>
        <translation>非文字內容（圖片、檔案）</translation>
    </message>
    <message>
        <source>other content block</source>
        <translation>其他內容區塊</translation>
    </message>
    <message>
        <source>thinking</source>
        <translation>思考過程</translation>
    </message>
    <message>
        <source>compaction summary</source>
        <translation>壓縮摘要</translation>
    </message>
    <message>
        <source>injected context</source>
        <translation>注入的上下文</translation>
    </message>
    <message>
        <source>meta or injected context</source>
        <translation>中繼資料或注入的上下文</translation>
    </message>
    <message>
        <source>interruption marker</source>
        <translation>中斷標記</translation>
    </message>
    <message>
        <source>slash command or its output</source>
        <translation>斜線指令或其輸出</translation>
    </message>
    <message>
        <source>subagent line</source>
        <translation>子代理的行</translation>
    </message>
    <message>
        <source>subagent transcript</source>
        <translation>子代理的紀錄</translation>
    </message>
    <message>
        <source>developer or system message</source>
        <translation>開發者或系統訊息</translation>
    </message>
    <message>
        <source>hidden message</source>
        <translation>隱藏的訊息</translation>
    </message>
    <message>
        <source>empty message</source>
        <translation>空白訊息</translation>
    </message>
    <message>
        <source>structural line (system, summary, progress, snapshot …)</source>
        <translation>結構資料行（系統、摘要、進度、快照…）</translation>
    </message>
    <message>
        <source>structural line (session meta, turn context, token count …)</source>
        <translation>結構資料行（工作階段資訊、回合脈絡、token 計數…）</translation>
    </message>
    <message>
        <source>the same turn as an event (one stream is imported)</source>
        <translation>以事件重複記錄的同一回合（只匯入一份）</translation>
    </message>
    <message>
        <source>conversation found twice (the copy updated last is imported)</source>
        <translation>重複的對話（匯入最後更新的那份）</translation>
    </message>
    <message>
        <source>message in both history.db and history.json (imported once)</source>
        <translation>同時在 history.db 與 history.json 中的訊息（只匯入一次）</translation>
    </message>
    <message>
        <source>temp- session (throwaway)</source>
        <translation>temp- 工作階段（暫時）</translation>
    </message>
    <message>
        <source>folder name is not a session id</source>
        <translation>資料夾名稱不是工作階段 ID</translation>
    </message>
    <message>
        <source>session with an unreadable history.json</source>
        <translation>history.json 無法讀取的工作階段</translation>
    </message>
    <message>
        <source>unreadable history.db (only history.json was read)</source>
        <translation>無法讀取的 history.db（只讀了 history.json）</translation>
    </message>
    <message>
        <source>session without messages</source>
        <translation>沒有訊息的工作階段</translation>
    </message>
    <message>
        <source>summary.json of a session without messages</source>
        <translation>沒有訊息之工作階段的 summary.json</translation>
    </message>
    <message>
        <source>unreadable summary.json</source>
        <translation>無法讀取的 summary.json</translation>
    </message>
    <message>
        <source>summary.json without summary keys</source>
        <translation>沒有摘要欄位的 summary.json</translation>
    </message>
    <message>
        <source>broken conversation</source>
        <translation>損壞的對話</translation>
    </message>
    <message>
        <source>conversation without messages</source>
        <translation>沒有訊息的對話</translation>
    </message>
    <message>
        <source>transcript without a usable session id</source>
        <translation>沒有可用工作階段 ID 的紀錄</translation>
    </message>
    <message>
        <source>transcript without messages</source>
        <translation>沒有訊息的紀錄</translation>
    </message>
    <message>
        <source>unreadable transcript</source>
        <translation>無法讀取的紀錄</translation>
    </message>
    <message>
        <source>line that is not JSON</source>
        <translation>不是 JSON 的行</translation>
    </message>
    <message>
        <source>line that is not an object</source>
        <translation>不是物件的行</translation>
    </message>
    <message>
        <source>watched folder that does not exist</source>
        <translation>不存在的監看資料夾</translation>
    </message>
    <message>
        <source>watched folder without agent transcripts</source>
        <translation>沒有代理程式紀錄的監看資料夾</translation>
    </message>
    <message>
        <source>broken message</source>
        <translation>損壞的訊息</translation>
    </message>
    <message>
        <source>message with an unknown author</source>
        <translation>作者不明的訊息</translation>
    </message>
    <message>
        <source>message with an unknown sender</source>
        <translation>傳送者不明的訊息</translation>
    </message>
    <message>
        <source>message with a time that is not a number</source>
        <translation>時間不是數字的訊息</translation>
    </message>
    <message>
        <source>message with a negative time</source>
        <translation>時間為負數的訊息</translation>
    </message>
    <message>
        <source>message with a time before 1990</source>
        <translation>時間早於 1990 年的訊息</translation>
    </message>
    <message>
        <source>message with a time after 2200</source>
        <translation>時間晚於 2200 年的訊息</translation>
    </message>
    <message>
        <source>{value} message</source>
        <translation>{value} 訊息</translation>
    </message>
    <message>
        <source>non-text message ({value})</source>
        <translation>非文字訊息（{value}）</translation>
    </message>
    <message>
        <source>non-text part ({value})</source>
        <translation>非文字部分（{value}）</translation>
    </message>
    <message>
        <source>message longer than {value} characters</source>
        <translation>超過 {value} 個字元的訊息</translation>
    </message>
    <message>
        <source>file that is not {value}</source>
        <translation>不是 {value} 的檔案</translation>
    </message>
</context>
<context>
    <name>About</name>
    <message>
        <source>About memtray</source>
        <translation>關於 memtray</translation>
    </message>
    <message>
        <source>A memory for your conversations with AI assistants, kept on this computer: every message, rolling summaries written by Gemini, and search by keyword or by meaning.</source>
        <translation>替你和 AI 助理的對話保留記憶，全部存在這台電腦上：每一則訊息、由 Gemini 持續更新的摘要，還能用關鍵字或語意找回任何內容。</translation>
    </message>
    <message>
        <source>Open data folder</source>
        <translation>開啟資料夾</translation>
    </message>
    <message>
        <source>Open log folder</source>
        <translation>開啟記錄檔資料夾</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>資料存放位置</translation>
    </message>
    <message>
        <source>Log folder</source>
        <translation>記錄檔位置</translation>
    </message>
    <message>
        <source>Version {version}</source>
        <translation>版本 {version}</translation>
    </message>
    <message>
        <source>Version unknown (not installed as a package)</source>
        <translation>版本不明（不是以套件方式安裝）</translation>
    </message>
</context>
<context>
    <name>Actions</name>
    <message>
        <source>&amp;File</source>
        <translation>檔案(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Memory</source>
        <translation>記憶庫(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>說明(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Open sessions…</source>
        <translation>開啟對話列表(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Search…</source>
        <translation>搜尋(&amp;S)…</translation>
    </message>
    <message>
        <source>Search &amp;memory…</source>
        <translation>搜尋記憶(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;Import…</source>
        <translation>匯入(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;New chat</source>
        <translation>新對話(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Continue</source>
        <translation>繼續對話(&amp;C)</translation>
    </message>
    <message>
        <source>Summari&amp;ze now</source>
        <translation>立即產生摘要(&amp;Z)</translation>
    </message>
    <message>
        <source>S&amp;ync now</source>
        <translation>立即同步(&amp;Y)</translation>
    </message>
    <message>
        <source>Write what is new here to the sync folder and apply what the other devices wrote</source>
        <translation>把這裡的新內容寫進同步資料夾，並套用其他裝置寫入的內容</translation>
    </message>
    <message>
        <source>Sync is off: set it up in Settings</source>
        <translation>同步未開啟：請在「設定」中設定</translation>
    </message>
    <message>
        <source>Com&amp;pact…</source>
        <translation>整理近期紀錄(&amp;P)…</translation>
    </message>
    <message>
        <source>&amp;Reset…</source>
        <translation>重設(&amp;R)…</translation>
    </message>
    <message>
        <source>Se&amp;ttings…</source>
        <translation>設定(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;About memtray</source>
        <translation>關於 memtray(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>結束(&amp;Q)</translation>
    </message>
    <message>
        <source>Repair the data&amp;base…</source>
        <translation>修復資料庫(&amp;B)…</translation>
    </message>
    <message>
        <source>One box over every conversation; Enter opens the one you choose</source>
        <translation>一個搜尋框找遍所有對話；按 Enter 開啟選中的那一則</translation>
    </message>
    <message>
        <source>The summarizer is not part of this build</source>
        <translation>這個版本沒有摘要功能</translation>
    </message>
    <message>
        <source>Deletes a session&apos;s messages; its summary is kept</source>
        <translation>刪除一段對話的訊息；保留它的摘要</translation>
    </message>
    <message>
        <source>Res&amp;ume summaries</source>
        <translation>恢復自動摘要(&amp;U)</translation>
    </message>
    <message>
        <source>Pa&amp;use summaries</source>
        <translation>暫停自動摘要(&amp;U)</translation>
    </message>
    <message>
        <source>Resume &amp;embedding</source>
        <translation>繼續建立語意索引(&amp;E)</translation>
    </message>
    <message>
        <source>Pause &amp;embedding</source>
        <translation>暫停建立語意索引(&amp;E)</translation>
    </message>
    <message>
        <source>Search by meaning learns new messages in the background; paused, they wait until you resume, after a restart too</source>
        <translation>語意搜尋會在背景學習新訊息；暫停時新訊息會排隊等候，直到你繼續為止（重新啟動後也一樣）</translation>
    </message>
    <message>
        <source>Moves the damaged database aside and rebuilds it from what can still be read</source>
        <translation>把損壞的資料庫移到一旁，再用仍讀得到的內容重建</translation>
    </message>
    <message>
        <source>Moves older messages out of the recent history sent to the model; they stay in the archive and can still be searched</source>
        <translation>把較舊的訊息移出每次送給模型的近期紀錄；它們會保存在封存區，仍然搜尋得到</translation>
    </message>
</context>
<context>
    <name>App</name>
    <message>
        <source>This desktop has no system tray, so memtray runs as this window: its menus hold everything the tray menu would. Closing it quits memtray; scheduled summaries run while it is open.</source>
        <translation>這個桌面環境沒有系統匣，所以 memtray 以這個視窗執行：系統匣選單裡的功能都在上方的選單中。關閉視窗就會結束 memtray；視窗開著的時候，排定的摘要會照常進行。</translation>
    </message>
    <message>
        <source>memtray runs in the system tray: click its icon for your sessions, search, chat and settings.</source>
        <translation>memtray 在系統匣執行：按它的圖示就能看對話、搜尋、聊天和設定。</translation>
    </message>
    <message>
        <source>{keys} searches your memory from anywhere.</source>
        <translation>在任何地方按 {keys} 都能搜尋你的記憶。</translation>
    </message>
    <message>
        <source>memtray is running</source>
        <translation>memtray 已在執行</translation>
    </message>
    <message>
        <source>opening the memory</source>
        <translation>開啟記憶庫</translation>
    </message>
    <message>
        <source>memtray: global shortcut</source>
        <translation>memtray：全域快捷鍵</translation>
    </message>
</context>
<context>
    <name>Chat</name>
    <message>
        <source>memtray — chat {session}</source>
        <translation>memtray — 對話 {session}</translation>
    </message>
    <message>
        <source>Write a message… (Ctrl+Enter sends)</source>
        <translation>輸入訊息…（按 Ctrl+Enter 送出）</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>對話內容</translation>
    </message>
    <message>
        <source>The conversation so far</source>
        <translation>到目前為止的對話</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>訊息</translation>
    </message>
    <message>
        <source>Your next message; Ctrl+Enter sends it</source>
        <translation>你的下一則訊息；按 Ctrl+Enter 送出</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>送出</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>New conversation.</source>
        <translation>新的對話。</translation>
    </message>
    <message>
        <source>Loading the conversation…</source>
        <translation>正在載入對話…</translation>
    </message>
    <message numerus="yes">
        <source>%Ln recent message(s) of {session}.</source>
        <translation>
            <numerusform>{session} 最近的 %Ln 則訊息。</numerusform>
        </translation>
    </message>
    <message>
        <source>loading the conversation</source>
        <translation>載入對話</translation>
    </message>
    <message>
        <source>The messages of this conversation were deleted.</source>
        <translation>這段對話的訊息已刪除。</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>思考中…</translation>
    </message>
    <message>
        <source>Chat in {session}</source>
        <translation>在 {session} 對話</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Answering…</source>
        <translation>回答中…</translation>
    </message>
    <message>
        <source>Looked into the memory ({tool})…</source>
        <translation>查閱了記憶庫（{tool}）…</translation>
    </message>
    <message numerus="yes">
        <source>Saved, %n memory lookup(s).</source>
        <translation>
            <numerusform>已儲存，查閱記憶庫 %n 次。</numerusform>
        </translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已儲存。</translation>
    </message>
    <message>
        <source>sending the message</source>
        <translation>送出訊息</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
</context>
<context>
    <name>Chooser</name>
    <message>
        <source>memtray: compact a session</source>
        <translation>memtray：整理對話的近期紀錄</translation>
    </message>
    <message>
        <source>Compact</source>
        <translation>整理</translation>
    </message>
    <message>
        <source>memtray: reset a session</source>
        <translation>memtray：重設對話</translation>
    </message>
    <message>
        <source>Resetting deletes a session&apos;s messages; its summary and the error memory are kept. You will be asked to confirm.</source>
        <translation>重設會刪除一段對話的訊息；它的摘要和錯誤記憶會保留。執行前會再請你確認。</translation>
    </message>
    <message>
        <source>Reset…</source>
        <translation>重設…</translation>
    </message>
    <message>
        <source>Compacting moves a session&apos;s oldest messages out of the recent history the model sees with each message; they stay in the archive and can still be searched. The limit is {limit}: a session larger than {target} is trimmed to about {target}, a smaller one is left as it is.</source>
        <translation>整理會把對話中最舊的訊息移出每次送給模型的近期紀錄；它們仍保存在封存中，也還能搜尋。上限是 {limit}：近期紀錄超過 {target} 的對話會整理到約 {target}，較小的保持原樣。</translation>
    </message>
    <message>
        <source>Choose a session to see what happens to it.</source>
        <translation>選一個對話，看看它會有什麼變化。</translation>
    </message>
    <message numerus="yes">
        <source>Reset deletes the %Ln message(s) of “{session}”, after you confirm.</source>
        <translation>
            <numerusform>確認後，重設會刪除「{session}」的 %Ln 則訊息。</numerusform>
        </translation>
    </message>
    <message>
        <source>“{session}” has {size} of recent history, not more than {target}: compacting changes nothing.</source>
        <translation>「{session}」的近期紀錄是 {size}，沒有超過 {target}：整理不會改變任何東西。</translation>
    </message>
    <message>
        <source>“{session}” has {size} of recent history: compacting deletes its oldest messages until about {target} remain (a private chat is not archived).</source>
        <translation>「{session}」的近期紀錄是 {size}：整理會刪除最舊的訊息，直到剩下約 {target}（私密對話不會封存）。</translation>
    </message>
    <message>
        <source>“{session}” has {size} of recent history: compacting moves its oldest messages to the archive until about {target} remain.</source>
        <translation>「{session}」的近期紀錄是 {size}：整理會把最舊的訊息移到封存區，直到剩下約 {target}。</translation>
    </message>
    <message numerus="yes">
        <source>Compact all (%n)</source>
        <translation>
            <numerusform>全部整理（%n）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Compact the %n session(s) larger than {target}</source>
        <translation>
            <numerusform>整理近期紀錄超過 {target} 的 %n 個對話</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Conversation</name>
    <message>
        <source>Choose a session on the left.</source>
        <translation>請從左邊選一個對話。</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>複製</translation>
    </message>
    <message>
        <source>Copy the selected messages as text</source>
        <translation>把選取的訊息複製成文字</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>匯出…</translation>
    </message>
    <message>
        <source>Save the whole session to a file</source>
        <translation>把整個對話存成檔案</translation>
    </message>
    <message>
        <source>Messages</source>
        <translation>訊息</translation>
    </message>
    <message>
        <source>The session&apos;s messages, oldest first; Ctrl+C copies the selected ones</source>
        <translation>此工作階段的訊息，最舊的在前；按 Ctrl+C 複製選取的訊息</translation>
    </message>
    <message>
        <source>Selected message</source>
        <translation>選取的訊息</translation>
    </message>
    <message>
        <source>The whole text of the selected message</source>
        <translation>選取訊息的完整內容</translation>
    </message>
    <message>
        <source>&lt;b&gt;{session}&lt;/b&gt; — loading…</source>
        <translation>&lt;b&gt;{session}&lt;/b&gt; — 載入中…</translation>
    </message>
    <message>
        <source>Exporting “{session}”</source>
        <translation>正在匯出「{session}」</translation>
    </message>
    <message>
        <source>Export session</source>
        <translation>匯出對話</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;{session}&lt;/b&gt; — %Ln recent message(s) · compacted</source>
        <translation>
            <numerusform>&lt;b&gt;{session}&lt;/b&gt; — 近期 %Ln 則訊息 · 較舊的已移到封存區</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;{session}&lt;/b&gt; — %Ln recent message(s)</source>
        <translation>
            <numerusform>&lt;b&gt;{session}&lt;/b&gt; — 近期 %Ln 則訊息</numerusform>
        </translation>
    </message>
    <message>
        <source>loading the conversation</source>
        <translation>載入對話</translation>
    </message>
</context>
<context>
    <name>Crash</name>
    <message>
        <source>memtray: {title}</source>
        <translation>memtray：{title}</translation>
    </message>
</context>
<context>
    <name>Editing</name>
    <message>
        <source>memtray: rename session</source>
        <translation>memtray：重新命名對話</translation>
    </message>
    <message>
        <source>A title for “{session}” (leave it empty to use its first message):</source>
        <translation>「{session}」的標題（留白則使用它的第一則訊息）：</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>重新命名</translation>
    </message>
    <message>
        <source>Renamed</source>
        <translation>已重新命名</translation>
    </message>
    <message>
        <source>“{session}” is now called “{title}”.</source>
        <translation>「{session}」現在叫做「{title}」。</translation>
    </message>
    <message numerus="yes">
        <source>This deletes the whole session: its %Ln message(s) (the recent history and the archive, with their search index), its summary and its folder. The error memory is kept (it is shared by all sessions). This cannot be undone.</source>
        <translation>
            <numerusform>這會刪除整段對話：它的 %Ln 則訊息（近期紀錄和封存，連同搜尋索引）、它的摘要和它的資料夾。錯誤記憶會保留（所有對話共用）。刪除後無法復原。</numerusform>
        </translation>
    </message>
    <message>
        <source>memtray: remove session</source>
        <translation>memtray：移除對話</translation>
    </message>
    <message>
        <source>Remove the session “{title}”?</source>
        <translation>要移除對話「{title}」嗎？</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>renaming “{session}”</source>
        <translation>重新命名「{session}」</translation>
    </message>
    <message>
        <source>removing “{session}”</source>
        <translation>移除「{session}」</translation>
    </message>
    <message>
        <source>It is deleted everywhere: the recent history, the archive, the search index and the vectors, and its text is overwritten on disk. The session&apos;s summary is deleted too; the next summary run writes it again from the messages that remain.</source>
        <translation>它會從所有地方刪除：近期紀錄、封存、搜尋索引和語意向量，磁碟上的文字也會被覆寫。這段對話的摘要也會刪除；下次產生摘要時，會用剩下的訊息重新寫一份。</translation>
    </message>
    <message>
        <source>memtray: forget message</source>
        <translation>memtray：遺忘訊息</translation>
    </message>
    <message>
        <source>Forget this message?

“{text}”</source>
        <translation>要遺忘這則訊息嗎？

「{text}」</translation>
    </message>
    <message>
        <source>Forget</source>
        <translation>遺忘</translation>
    </message>
    <message>
        <source>Forgot a message</source>
        <translation>已遺忘一則訊息</translation>
    </message>
    <message>
        <source>Message #{id} was deleted everywhere.</source>
        <translation>第 #{id} 則訊息已從所有地方刪除。</translation>
    </message>
    <message>
        <source>forgetting a message</source>
        <translation>遺忘訊息</translation>
    </message>
    <message>
        <source>Removed “{session}”</source>
        <translation>已移除「{session}」</translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) deleted with the session; the error memory was kept.</source>
        <translation>
            <numerusform>已隨對話刪除 %Ln 則訊息；錯誤記憶已保留。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ErrorMemory</name>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Symptom</source>
        <translation>症狀</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>處理方式</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>結果</translation>
    </message>
    <message>
        <source>Expires in</source>
        <translation>保留天數</translation>
    </message>
    <message>
        <source>resolved</source>
        <translation>已解決</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失敗</translation>
    </message>
    <message>
        <source>abandoned</source>
        <translation>已放棄</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>不明</translation>
    </message>
    <message numerus="yes">
        <source>%n day(s)</source>
        <translation>
            <numerusform>%n 天</numerusform>
        </translation>
    </message>
    <message>
        <source>id {id}</source>
        <translation>編號 {id}</translation>
    </message>
    <message>
        <source>cause: {cause}</source>
        <translation>原因：{cause}</translation>
    </message>
    <message>
        <source>keywords: {keywords}</source>
        <translation>關鍵字：{keywords}</translation>
    </message>
    <message>
        <source>Search the error memory (tool, symptom, cause)</source>
        <translation>搜尋工具錯誤紀錄（工具、症狀、原因）</translation>
    </message>
    <message numerus="yes">
        <source>Tool errors and their fixes, shared by every session; a record is kept %n day(s) after its last use</source>
        <translation>
            <numerusform>工具出錯的情形和解決方法，所有對話共用；每筆紀錄在最後一次用到後保留 %n 天</numerusform>
        </translation>
    </message>
    <message>
        <source>Search the error memory</source>
        <translation>搜尋工具錯誤紀錄</translation>
    </message>
    <message>
        <source>Forget</source>
        <translation>刪除</translation>
    </message>
    <message>
        <source>Delete the selected records</source>
        <translation>刪除選取的紀錄</translation>
    </message>
    <message>
        <source>Error memory</source>
        <translation>工具錯誤紀錄</translation>
    </message>
    <message>
        <source>Tool errors and their fixes; Forget deletes the selected ones</source>
        <translation>工具出錯的情形和解決方法；「忘記」會刪除選取的紀錄</translation>
    </message>
    <message numerus="yes">
        <source>%n record(s) found</source>
        <translation>
            <numerusform>找到 %n 筆紀錄</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The newest %n record(s) of {total}</source>
        <translation>
            <numerusform>共 {total} 筆，顯示最新的 %n 筆</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n record(s)</source>
        <translation>
            <numerusform>%n 筆紀錄</numerusform>
        </translation>
    </message>
    <message>
        <source>Forgot {id}</source>
        <translation>已刪除 {id}</translation>
    </message>
    <message>
        <source>using the error memory</source>
        <translation>使用工具錯誤紀錄</translation>
    </message>
</context>
<context>
    <name>Errors</name>
    <message>
        <source>Could not finish {doing}</source>
        <translation>{doing}時發生問題</translation>
    </message>
    <message>
        <source>Something went wrong</source>
        <translation>發生問題</translation>
    </message>
    <message>
        <source>The session no longer exists ({detail}). It may have been removed by another program.</source>
        <translation>這個對話已經不存在（{detail}），可能被其他程式刪除了。</translation>
    </message>
    <message>
        <source>A Gemini key is one word of text, without spaces: check what was pasted.</source>
        <translation>Gemini 金鑰是一串不含空白的文字：請檢查貼上的內容。</translation>
    </message>
    <message>
        <source>That setting was not saved: {detail}.</source>
        <translation>這項設定沒有儲存：{detail}。</translation>
    </message>
    <message>
        <source>The passphrase does not open this sync folder: it was set up with another one. Type the passphrase you chose on your first device. Nothing was changed.</source>
        <translation>這個密語打不開此同步資料夾：它是用另一個密語設定的。請輸入你在第一台裝置上設定的密語。沒有任何變更。</translation>
    </message>
    <message>
        <source>memtray could not use that input: {detail}.</source>
        <translation>memtray 無法使用這項輸入：{detail}。</translation>
    </message>
    <message>
        <source>{detail}. Type more of the id.</source>
        <translation>{detail}。請把編號多輸入幾個字元。</translation>
    </message>
    <message>
        <source>Already done: {detail}. Nothing is left to forget.</source>
        <translation>已經完成：{detail}。沒有需要再忘記的內容。</translation>
    </message>
    <message>
        <source>Not found: {detail}.</source>
        <translation>找不到：{detail}。</translation>
    </message>
    <message>
        <source>Another program has the memory open (the MCP server, memtray daemon or a command). Close it, then try again. Nothing was changed.</source>
        <translation>另一個程式正開著這份記憶（MCP 伺服器、memtray daemon 或某個指令）。請先關閉它，再試一次。什麼都沒有變更。</translation>
    </message>
    <message>
        <source>Another memtray program kept the memory busy for too long. Try again in a moment.</source>
        <translation>另一個 memtray 程式佔用記憶庫太久了，請稍後再試一次。</translation>
    </message>
    <message>
        <source>A memory file is damaged ({detail}). Your data folder was left as it is: choose “Repair the database…” in memtray&apos;s menu to rebuild it (the damaged file is kept).</source>
        <translation>有一個記憶檔案損壞了（{detail}）。你的資料夾維持原樣：請在 memtray 的選單中選擇「修復資料庫…」來重建它（損壞的檔案會保留下來）。</translation>
    </message>
    <message>
        <source>The memory was closed while this was still running (a repair replaced it, or memtray is quitting). Nothing was changed; try again.</source>
        <translation>這項工作還在進行時，記憶已關閉（修復取代了它，或 memtray 正在結束）。沒有任何變更，請再試一次。</translation>
    </message>
    <message>
        <source>Sync cannot go on: {detail}.</source>
        <translation>無法繼續同步：{detail}。</translation>
    </message>
    <message>
        <source>The memory could not be read or written ({detail}). Check free disk space and permissions.</source>
        <translation>無法讀寫記憶庫（{detail}）。請檢查磁碟剩餘空間和檔案權限。</translation>
    </message>
    <message>
        <source>Search by meaning is not available right now ({detail}). Keyword search still works.</source>
        <translation>目前無法依語意搜尋（{detail}）；關鍵字搜尋仍然可以用。</translation>
    </message>
    <message>
        <source>The reply was stopped. Nothing was saved.</source>
        <translation>回覆已停止，沒有儲存任何內容。</translation>
    </message>
    <message>
        <source>Gemini gave no answer to show (it may have been blocked). Nothing was saved.</source>
        <translation>Gemini 沒有給出可以顯示的回答（可能被阻擋了），沒有儲存任何內容。</translation>
    </message>
    <message>
        <source>No Gemini API key is set. Add one in Settings (or set GEMINI_API_KEY).</source>
        <translation>還沒有設定 Gemini API 金鑰。請到「設定」加入一組（或設定環境變數 GEMINI_API_KEY）。</translation>
    </message>
    <message>
        <source>Gemini refused the API key. Check the key in Settings.</source>
        <translation>Gemini 不接受這組 API 金鑰，請到「設定」檢查金鑰。</translation>
    </message>
    <message>
        <source>Gemini&apos;s rate limit or quota was reached. memtray will try again later.</source>
        <translation>已達到 Gemini 的使用頻率或額度上限，memtray 稍後會再試一次。</translation>
    </message>
    <message>
        <source>Gemini did not answer in time. memtray will try again later.</source>
        <translation>Gemini 沒有及時回應，memtray 稍後會再試一次。</translation>
    </message>
    <message>
        <source>Gemini could not be reached (network down or a server error). memtray will try again later.</source>
        <translation>連不上 Gemini（網路中斷或伺服器出錯），memtray 稍後會再試一次。</translation>
    </message>
    <message>
        <source>The Gemini call failed: {detail}.</source>
        <translation>呼叫 Gemini 失敗：{detail}。</translation>
    </message>
    <message>
        <source>This computer has no secure key store (OS keyring), so the key cannot be saved, and memtray never saves it in plain text. Use it for this session only, or set GEMINI_API_KEY in the environment.</source>
        <translation>這台電腦沒有安全的金鑰儲存區（系統鑰匙圈），所以無法儲存金鑰；memtray 也絕不會把金鑰存成明文。你可以選擇只在這次執行期間使用，或設定環境變數 GEMINI_API_KEY。</translation>
    </message>
    <message>
        <source>This is a bug in memtray ({kind}: {detail}). It was written to the log; please report it.</source>
        <translation>這是 memtray 的程式錯誤（{kind}：{detail}）。詳細內容已寫入記錄檔，請回報給我們。</translation>
    </message>
    <message>
        <source>The disk is full ({file}). Free some space and try again.</source>
        <translation>磁碟已滿（{file}）。請清出一些空間後再試一次。</translation>
    </message>
    <message>
        <source>The disk is full. Free some space and try again.</source>
        <translation>磁碟已滿。請清出一些空間後再試一次。</translation>
    </message>
    <message>
        <source>memtray is not allowed to use a file ({file}). Check the folder&apos;s permissions.</source>
        <translation>memtray 沒有權限使用檔案（{file}），請檢查資料夾的權限。</translation>
    </message>
    <message>
        <source>memtray is not allowed to use a file. Check the folder&apos;s permissions.</source>
        <translation>memtray 沒有權限使用檔案，請檢查資料夾的權限。</translation>
    </message>
    <message>
        <source>A file could not be used ({file}): {reason}.</source>
        <translation>無法使用檔案（{file}）：{reason}。</translation>
    </message>
    <message>
        <source>A file could not be used: {reason}.</source>
        <translation>無法使用檔案：{reason}。</translation>
    </message>
    <message>
        <source>The key test failed</source>
        <translation>金鑰測試失敗</translation>
    </message>
    <message>
        <source>There is no key to test: paste one first, or save one.</source>
        <translation>沒有可以測試的金鑰：請先貼上或儲存一組金鑰。</translation>
    </message>
    <message>
        <source>Gemini refused this key (it is wrong, was revoked, or is not enabled for the Gemini API). Copy the whole key again from Google AI Studio.</source>
        <translation>Gemini 不接受這組金鑰（金鑰有誤、已被撤銷，或沒有啟用 Gemini API）。請到 Google AI Studio 重新複製完整的金鑰。</translation>
    </message>
    <message>
        <source>Gemini accepted the key, but its rate limit or quota is used up right now. Summaries wait and try again later; check the quota in Google AI Studio if this lasts.</source>
        <translation>Gemini 接受了這組金鑰，但目前的使用頻率或額度已經用完。摘要會等一下再試；如果一直這樣，請到 Google AI Studio 查看額度。</translation>
    </message>
    <message>
        <source>Gemini does not know the summary model: {detail}. Check the model name.</source>
        <translation>Gemini 找不到這個摘要模型：{detail}。請檢查模型名稱。</translation>
    </message>
    <message>
        <source>testing the key</source>
        <translation>測試金鑰</translation>
    </message>
</context>
<context>
    <name>Export</name>
    <message>
        <source>JSON Lines (*.jsonl)</source>
        <translation>JSON Lines 檔（*.jsonl）</translation>
    </message>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown 文件（*.md）</translation>
    </message>
</context>
<context>
    <name>Import</name>
    <message>
        <source>ChatGPT data export</source>
        <translation>ChatGPT 匯出的資料</translation>
    </message>
    <message>
        <source>Claude data export</source>
        <translation>Claude 匯出的資料</translation>
    </message>
    <message>
        <source>Agenvoy sessions folder</source>
        <translation>Agenvoy 的對話資料夾</translation>
    </message>
    <message>
        <source>Claude Code transcripts</source>
        <translation>Claude Code 的對話紀錄</translation>
    </message>
    <message>
        <source>Codex CLI sessions</source>
        <translation>Codex CLI 的工作階段</translation>
    </message>
    <message>
        <source>JSON Lines (one message per line)</source>
        <translation>JSON Lines（每行一則訊息）</translation>
    </message>
    <message>
        <source>an Agenvoy sessions/ folder, or one session folder (history.json, summary.json)</source>
        <translation>Agenvoy 的 sessions/ 資料夾，或其中一個對話的資料夾（內有 history.json、summary.json）</translation>
    </message>
    <message>
        <source>conversations.json of a ChatGPT data export (the file, its folder, or the .zip)</source>
        <translation>ChatGPT 匯出資料裡的 conversations.json（檔案本身、所在資料夾或整個 .zip 都可以）</translation>
    </message>
    <message>
        <source>conversations.json of a Claude data export (the file, its folder, or the .zip)</source>
        <translation>Claude 匯出資料裡的 conversations.json（檔案本身、所在資料夾或整個 .zip 都可以）</translation>
    </message>
    <message>
        <source>Claude Code transcripts: ~/.claude/projects, one project folder, or one .jsonl file</source>
        <translation>Claude Code 的對話紀錄：~/.claude/projects、其中一個專案資料夾，或單一 .jsonl 檔</translation>
    </message>
    <message>
        <source>Codex CLI rollouts: ~/.codex/sessions, a folder below it, or one rollout-….jsonl file</source>
        <translation>Codex CLI 的工作階段紀錄：~/.codex/sessions、其下的任一資料夾，或單一 rollout-….jsonl 檔</translation>
    </message>
    <message>
        <source>one history.json record per line, into one session</source>
        <translation>每行一筆 history.json 格式的訊息，全部匯入同一個對話</translation>
    </message>
    <message>
        <source>JSON Lines (*.jsonl *.json)</source>
        <translation>JSON Lines 檔（*.jsonl *.json）</translation>
    </message>
    <message>
        <source>ChatGPT export (conversations.json *.zip)</source>
        <translation>ChatGPT 匯出資料（conversations.json *.zip）</translation>
    </message>
    <message>
        <source>Claude export (conversations.json *.zip)</source>
        <translation>Claude 匯出資料（conversations.json *.zip）</translation>
    </message>
    <message>
        <source>Transcripts (*.jsonl)</source>
        <translation>對話紀錄（*.jsonl）</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} 秒</translation>
    </message>
    <message>
        <source>The file held no conversation to import ({took}).</source>
        <translation>檔案裡沒有可以匯入的對話（耗時 {took}）。</translation>
    </message>
    <message numerus="yes">
        <source>%Ln conversation(s)</source>
        <translation>
            <numerusform>%Ln 段對話</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) added</source>
        <translation>
            <numerusform>新增 %Ln 則訊息</numerusform>
        </translation>
    </message>
    <message>
        <source>Read {conversations} in {took}: {added}, {present} already in the memory.</source>
        <translation>花了 {took} 讀取 {conversations}：{added}，另有 {present} 則已經在記憶庫裡。</translation>
    </message>
    <message>
        <source>Read {conversations} in {took}: {added}.</source>
        <translation>花了 {took} 讀取 {conversations}：{added}。</translation>
    </message>
    <message numerus="yes">
        <source> %Ln transcript(s) had nothing new since the last import.</source>
        <translation>
            <numerusform> 有 %Ln 份對話紀錄自上次匯入後沒有新內容。</numerusform>
        </translation>
    </message>
    <message>
        <source>, </source>
        <comment>between the reasons of a list</comment>
        <translation>、</translation>
    </message>
    <message>
        <source>{count} × {why}</source>
        <translation>{why} {count} 則</translation>
    </message>
    <message>
        <source> Left out: {reasons}.</source>
        <translation>略過：{reasons}。</translation>
    </message>
    <message>
        <source>Importing {name}</source>
        <translation>正在匯入 {name}</translation>
    </message>
    <message>
        <source>memtray — import conversations</source>
        <translation>memtray — 匯入對話</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>選擇…</translation>
    </message>
    <message>
        <source>optional: one conversation into this session</source>
        <translation>選填：只匯入一段對話時，指定要放進哪個對話</translation>
    </message>
    <message>
        <source>Import</source>
        <translation>匯入</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>File or folder</source>
        <translation>檔案或資料夾</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>對話</translation>
    </message>
    <message>
        <source>Choose {what}. Importing the same file again adds nothing.</source>
        <translation>請選擇：{what}。同一個檔案再匯入一次不會重複加入。</translation>
    </message>
    <message>
        <source>Folder to import</source>
        <translation>要匯入的資料夾</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有檔案（*）</translation>
    </message>
    <message>
        <source>File to import</source>
        <translation>要匯入的檔案</translation>
    </message>
</context>
<context>
    <name>Keys</name>
    <message>
        <source>The key comes from the GEMINI_API_KEY environment variable ({masked}); it wins over the keyring.</source>
        <translation>金鑰來自環境變數 GEMINI_API_KEY（{masked}），會優先於系統鑰匙圈裡的金鑰。</translation>
    </message>
    <message>
        <source>A key ({masked}) is used for this session only: it is forgotten when memtray quits.</source>
        <translation>這組金鑰（{masked}）只在這次執行期間使用：memtray 結束後就會忘記。</translation>
    </message>
    <message>
        <source>A key ({masked}) is stored in the OS keyring ({backend}).</source>
        <translation>金鑰（{masked}）已存在系統鑰匙圈（{backend}）。</translation>
    </message>
    <message>
        <source>No key is stored. Paste one and press Save key; it goes to the OS keyring.</source>
        <translation>還沒有儲存金鑰。貼上金鑰後按「儲存金鑰」，就會存進系統鑰匙圈。</translation>
    </message>
    <message>
        <source>This computer has no secure key store (OS keyring), and memtray never saves the key in plain text. Paste a key and press “Use for this session only”: it is kept in memory until memtray quits (or set GEMINI_API_KEY in the environment).</source>
        <translation>這台電腦沒有安全的金鑰儲存區（系統鑰匙圈），而 memtray 絕不會把金鑰存成明文。請貼上金鑰並按「只在這次執行使用」：金鑰只保留在記憶體中，直到 memtray 結束（或設定環境變數 GEMINI_API_KEY）。</translation>
    </message>
    <message>
        <source>This key works: {model} answered in {seconds} s.</source>
        <translation>這組金鑰可以用：{model} 在 {seconds} 秒內回應了。</translation>
    </message>
    <message>
        <source>The key works: {model} answered in {seconds} s.</source>
        <translation>金鑰可以用：{model} 在 {seconds} 秒內回應了。</translation>
    </message>
</context>
<context>
    <name>Message</name>
    <message>
        <source>compaction cut — older messages live in the archive only</source>
        <translation>整理分界 — 以上較舊的訊息只保存在封存區</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>載入中…</translation>
    </message>
    <message>
        <source>user</source>
        <translation>使用者</translation>
    </message>
    <message>
        <source>assistant</source>
        <translation>助理</translation>
    </message>
</context>
<context>
    <name>Operations</name>
    <message>
        <source>{title}: {text}</source>
        <translation>{title}：{text}</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} 秒</translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) deleted; summary and error memory kept ({took}).</source>
        <translation>
            <numerusform>已刪除 %Ln 則訊息；摘要和工具錯誤紀錄都保留著（耗時 {took}）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) deleted; error memory kept ({took}).</source>
        <translation>
            <numerusform>已刪除 %Ln 則訊息；工具錯誤紀錄保留著（耗時 {took}）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Summarized</source>
        <translation>已產生摘要</translation>
    </message>
    <message>
        <source>Its existing summary was kept; messages after it are summarized from now on</source>
        <translation>保留了原有的摘要；之後的新訊息會從現在起接著摘要</translation>
    </message>
    <message>
        <source>Nothing new to summarize</source>
        <translation>沒有新的內容需要摘要</translation>
    </message>
    <message numerus="yes">
        <source>%Ln new message(s) were small talk; the summary is unchanged</source>
        <translation>
            <numerusform>%Ln 則新訊息都是閒聊，摘要沒有變動</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln new message(s) merged into the summary ({parts})</source>
        <translation>
            <numerusform>%Ln 則新訊息已併入摘要（{parts}）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n part(s)</source>
        <translation>
            <numerusform>分 %n 段處理</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing to compact in “{session}”</source>
        <translation>「{session}」不需要整理</translation>
    </message>
    <message>
        <source>Its recent history is {size}, not more than {target} (the limit is {limit}): nothing was moved ({took}).</source>
        <translation>它的近期紀錄是 {size}，沒有超過 {target}（上限是 {limit}）：沒有移動任何訊息（耗時 {took}）。</translation>
    </message>
    <message>
        <source>Its recent history is {size}, but its newest exchange always stays and is most of it: nothing was moved ({took}).</source>
        <translation>它的近期紀錄是 {size}，但大部分是一定會保留的最新一輪對話：沒有移動任何訊息（耗時 {took}）。</translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) deleted (a private chat is not archived), {kept} kept; recent history {before} → {after} in {took}.</source>
        <translation>
            <numerusform>已刪除 %Ln 則訊息（私密對話不會封存），保留 {kept} 則；近期紀錄 {before} → {after}，耗時 {took}。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) moved to the archive, {kept} kept; recent history {before} → {after} in {took}.</source>
        <translation>
            <numerusform>已把 %Ln 則訊息移到封存區，保留 {kept} 則；近期紀錄 {before} → {after}，耗時 {took}。</numerusform>
        </translation>
    </message>
    <message>
        <source>Compacted “{session}”</source>
        <translation>已整理「{session}」</translation>
    </message>
    <message>
        <source>Nothing to compact</source>
        <translation>不需要整理</translation>
    </message>
    <message numerus="yes">
        <source>The recent history of all %n session(s) is not more than {target} (the limit is {limit}) ({took}).</source>
        <translation>
            <numerusform>%n 個對話的近期紀錄都沒有超過 {target}（上限是 {limit}）（耗時 {took}）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Compacted %n session(s)</source>
        <translation>
            <numerusform>已整理 %n 個對話</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) trimmed from the recent history in {took}.</source>
        <translation>
            <numerusform>已從近期紀錄移出 %Ln 則訊息，耗時 {took}。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) trimmed from the recent history in {took}; {others} left as they were.</source>
        <translation>
            <numerusform>已從近期紀錄移出 %Ln 則訊息，耗時 {took}；{others}保持原樣。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n other session(s)</source>
        <translation>
            <numerusform>其他 %n 個對話</numerusform>
        </translation>
    </message>
    <message>
        <source>Synced</source>
        <translation>已同步</translation>
    </message>
    <message numerus="yes">
        <source>Sent %Ln new message(s).</source>
        <translation>
            <numerusform>已送出 %Ln 則新訊息。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Received %Ln new message(s) from the other devices.</source>
        <translation>
            <numerusform>從其他裝置收到 %Ln 則新訊息。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Still arriving: %n file(s) of the other devices.</source>
        <translation>
            <numerusform>其他裝置還有 %n 個檔案尚未傳到。</numerusform>
        </translation>
    </message>
    <message>
        <source>Reset “{session}”</source>
        <translation>已重設「{session}」</translation>
    </message>
    <message>
        <source>Summarized “{session}”</source>
        <translation>已摘要「{session}」</translation>
    </message>
    <message>
        <source>{what} ({took}).</source>
        <translation>{what}（耗時 {took}）。</translation>
    </message>
    <message numerus="yes">
        <source>%n session(s) summarized in {took}.</source>
        <translation>
            <numerusform>已摘要 %n 個對話，耗時 {took}。</numerusform>
        </translation>
    </message>
    <message>
        <source>No session was summarized.</source>
        <translation>沒有任何對話完成摘要。</translation>
    </message>
    <message>
        <source>Every summary is up to date.</source>
        <translation>所有摘要都是最新的。</translation>
    </message>
    <message>
        <source>Summaries</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>{done} Failed: {sessions}. {why}</source>
        <translation>{done}失敗的對話：{sessions}。{why}</translation>
    </message>
    <message>
        <source>{n} MiB</source>
        <translation>{n} MiB</translation>
    </message>
    <message>
        <source>{n} KiB</source>
        <translation>{n} KiB</translation>
    </message>
    <message numerus="yes">
        <source>%Ln byte(s)</source>
        <translation>
            <numerusform>%Ln 位元組</numerusform>
        </translation>
    </message>
    <message>
        <source>compacting “{session}”</source>
        <translation>整理「{session}」</translation>
    </message>
    <message>
        <source>Compacting “{session}”</source>
        <translation>正在整理「{session}」</translation>
    </message>
    <message>
        <source>resetting “{session}”</source>
        <translation>重設「{session}」</translation>
    </message>
    <message>
        <source>Resetting “{session}”</source>
        <translation>正在重設「{session}」</translation>
    </message>
    <message>
        <source>summarizing “{session}”</source>
        <translation>摘要「{session}」</translation>
    </message>
    <message>
        <source>Summarizing “{session}”</source>
        <translation>正在摘要「{session}」</translation>
    </message>
    <message>
        <source>compacting all sessions</source>
        <translation>整理所有對話</translation>
    </message>
    <message>
        <source>Compacting all sessions</source>
        <translation>正在整理所有對話</translation>
    </message>
    <message numerus="yes">
        <source>This deletes its %Ln message(s): the recent history and the archive, with their search index.</source>
        <translation>
            <numerusform>這會刪除它的 %Ln 則訊息：包括近期紀錄、封存區，以及它們的搜尋索引。</numerusform>
        </translation>
    </message>
    <message>
        <source>This deletes its messages: the recent history and the archive, with their search index.</source>
        <translation>這會刪除它的所有訊息：包括近期紀錄、封存區，以及它們的搜尋索引。</translation>
    </message>
    <message>
        <source>Kept: the session&apos;s summary, and the error memory (it is shared by all sessions).</source>
        <translation>會保留：這個對話的摘要，以及工具錯誤紀錄（所有對話共用）。</translation>
    </message>
    <message>
        <source>memtray: reset session</source>
        <translation>memtray：重設對話</translation>
    </message>
    <message>
        <source>Reset the session “{session}”?</source>
        <translation>要重設對話「{session}」嗎？</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重設</translation>
    </message>
    <message>
        <source>The summarizer is not part of this build.</source>
        <translation>這個版本沒有摘要功能。</translation>
    </message>
    <message>
        <source>summarizing</source>
        <translation>產生摘要</translation>
    </message>
    <message>
        <source>Summarizing</source>
        <translation>正在產生摘要</translation>
    </message>
    <message>
        <source>Syncing</source>
        <translation>正在同步</translation>
    </message>
    <message>
        <source>syncing</source>
        <translation>同步</translation>
    </message>
    <message>
        <source>pausing summaries</source>
        <translation>暫停自動摘要</translation>
    </message>
    <message>
        <source>resuming summaries</source>
        <translation>恢復自動摘要</translation>
    </message>
    <message>
        <source>pausing the embedding</source>
        <translation>暫停建立語意索引</translation>
    </message>
    <message>
        <source>resuming the embedding</source>
        <translation>繼續建立語意索引</translation>
    </message>
</context>
<context>
    <name>Progress</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>{task}… (+{more} more)</source>
        <translation>{task}…（還有 {more} 項）</translation>
    </message>
    <message>
        <source>{task}…</source>
        <translation>{task}…</translation>
    </message>
    <message>
        <source>{task}: cancelling…</source>
        <translation>{task}：正在取消…</translation>
    </message>
</context>
<context>
    <name>QuickSearch</name>
    <message>
        <source>memtray — search memory</source>
        <translation>memtray — 搜尋記憶</translation>
    </message>
    <message>
        <source>Search every conversation…</source>
        <translation>搜尋所有對話…</translation>
    </message>
    <message>
        <source>Search memory</source>
        <translation>搜尋記憶</translation>
    </message>
    <message>
        <source>Up and Down choose a result, Enter opens it, Esc closes this window</source>
        <translation>上下鍵選擇結果，Enter 開啟，Esc 關閉此視窗</translation>
    </message>
    <message>
        <source>Results</source>
        <translation>結果</translation>
    </message>
</context>
<context>
    <name>Repair</name>
    <message>
        <source>Database repaired</source>
        <translation>資料庫已修復</translation>
    </message>
    <message>
        <source>The database is fine; nothing was changed.</source>
        <translation>資料庫沒有問題；沒有做任何變更。</translation>
    </message>
    <message>
        <source>The damaged file was kept as {file}.</source>
        <translation>損壞的檔案已保留為 {file}。</translation>
    </message>
    <message numerus="yes">
        <source>%Ln message(s) were read back from it.</source>
        <translation>
            <numerusform>從中讀回了 %Ln 則訊息。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln more were restored from the sessions&apos; history files.</source>
        <translation>
            <numerusform>另外從各對話的紀錄檔還原了 %Ln 則。</numerusform>
        </translation>
    </message>
    <message>
        <source>Search by meaning is rebuilt in the background.</source>
        <translation>語意搜尋的索引會在背景重建。</translation>
    </message>
    <message>
        <source> Not restored (their history files are damaged too): {sessions}.</source>
        <translation> 未能還原（它們的紀錄檔也損壞了）：{sessions}。</translation>
    </message>
    <message>
        <source>memtray: repair the database</source>
        <translation>memtray：修復資料庫</translation>
    </message>
    <message>
        <source>The memory&apos;s database is damaged. Repair it now?</source>
        <translation>記憶資料庫損壞了。要現在修復嗎？</translation>
    </message>
    <message>
        <source>memtray moves the damaged file aside (it is not deleted), reads back every message it still can, and restores each session&apos;s recent messages from its history file. Archived messages on damaged parts of the file cannot be recovered.

Close other memtray programs first (the MCP server, memtray daemon).</source>
        <translation>memtray 會把損壞的檔案移到一旁（不會刪除），讀回所有還讀得到的訊息，並用每段對話的紀錄檔還原它的近期訊息。位在檔案損壞部分的封存訊息無法救回。

請先關閉其他 memtray 程式（MCP 伺服器、memtray daemon）。</translation>
    </message>
    <message>
        <source>Repair</source>
        <translation>修復</translation>
    </message>
    <message>
        <source>Repairing the database</source>
        <translation>正在修復資料庫</translation>
    </message>
    <message>
        <source>repairing the database</source>
        <translation>修復資料庫</translation>
    </message>
</context>
<context>
    <name>Search</name>
    <message>
        <source>Any time</source>
        <translation>不限時間</translation>
    </message>
    <message>
        <source>Last day</source>
        <translation>最近一天</translation>
    </message>
    <message>
        <source>Last week</source>
        <translation>最近一週</translation>
    </message>
    <message>
        <source>Last month</source>
        <translation>最近一個月</translation>
    </message>
    <message>
        <source>Last year</source>
        <translation>最近一年</translation>
    </message>
    <message>
        <source>Keywords</source>
        <translation>關鍵字</translation>
    </message>
    <message>
        <source>Meaning</source>
        <translation>語意</translation>
    </message>
    <message>
        <source>Keywords + meaning</source>
        <translation>關鍵字＋語意</translation>
    </message>
    <message>
        <source>recent</source>
        <translation>近期紀錄</translation>
    </message>
    <message>
        <source>archive</source>
        <translation>封存區</translation>
    </message>
    <message>
        <source>semantic</source>
        <translation>語意</translation>
    </message>
    <message>
        <source>hybrid</source>
        <translation>關鍵字＋語意</translation>
    </message>
    <message>
        <source>When</source>
        <translation>時間</translation>
    </message>
    <message>
        <source>How far back to search</source>
        <translation>要往回搜尋多久</translation>
    </message>
    <message>
        <source>Results</source>
        <translation>結果</translation>
    </message>
    <message>
        <source>Each result with the messages around it; a result&apos;s link opens its conversation</source>
        <translation>每個結果及其前後訊息；點結果的連結會開啟該對話</translation>
    </message>
    <message>
        <source>New messages are embedded in the background; until they are, meaning search cannot rank them, and keywords still find them.</source>
        <translation>新訊息會在背景建立語意索引；完成前，語意搜尋還排不到它們，關鍵字搜尋仍然找得到。</translation>
    </message>
    <message numerus="yes">
        <source>{shown} of %n+ results</source>
        <translation>
            <numerusform>共 %n 筆以上，顯示 {shown} 筆</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The first %n results (more words narrow the search)</source>
        <translation>
            <numerusform>顯示前 %n 筆結果（多加幾個字可以縮小範圍）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{shown} of %n result(s)</source>
        <translation>
            <numerusform>共 %n 筆，顯示 {shown} 筆</numerusform>
        </translation>
    </message>
    <message>
        <source>meaning search covers {embedded} of {total} messages so far</source>
        <translation>語意搜尋目前涵蓋 {total} 則訊息中的 {embedded} 則</translation>
    </message>
    <message>
        <source>{count} · {coverage}</source>
        <translation>{count} · {coverage}</translation>
    </message>
    <message>
        <source>Search your conversations (&quot;quoted phrase&quot; stays a phrase)</source>
        <translation>搜尋你的對話（用 &quot;引號&quot; 括起來的詞組會整段比對）</translation>
    </message>
    <message>
        <source>Searches every conversation as you type</source>
        <translation>邊打字邊搜尋所有對話</translation>
    </message>
    <message>
        <source>Match</source>
        <translation>比對方式</translation>
    </message>
    <message>
        <source>Search by keywords, by meaning, or both</source>
        <translation>依關鍵字、依語意，或兩者一起搜尋</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>範圍</translation>
    </message>
    <message>
        <source>Every session, or the one open</source>
        <translation>所有工作階段，或目前開啟的那一個</translation>
    </message>
    <message>
        <source>All sessions</source>
        <translation>所有對話</translation>
    </message>
    <message>
        <source>This session</source>
        <translation>這個對話</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>搜尋</translation>
    </message>
    <message>
        <source>More results</source>
        <translation>更多結果</translation>
    </message>
    <message>
        <source>Search by meaning becomes available with the semantic index</source>
        <translation>有了語意索引之後，才能依語意搜尋</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>搜尋中…</translation>
    </message>
    <message numerus="yes">
        <source>%n result(s)</source>
        <translation>
            <numerusform>%n 筆結果</numerusform>
        </translation>
    </message>
    <message>
        <source>No results.</source>
        <translation>沒有結果。</translation>
    </message>
    <message>
        <source>searching</source>
        <translation>搜尋</translation>
    </message>
</context>
<context>
    <name>Sessions</name>
    <message>
        <source>Session</source>
        <translation>對話</translation>
    </message>
    <message>
        <source>Last message</source>
        <translation>最後一則訊息</translation>
    </message>
    <message>
        <source>Recent</source>
        <translation>近期</translation>
    </message>
    <message>
        <source>Archived</source>
        <translation>已封存</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Messages in the recent history, the part sent to the model each turn</source>
        <translation>近期紀錄裡的訊息數，也就是每次會送給模型的部分</translation>
    </message>
    <message>
        <source>Messages kept only in the archive (still searchable)</source>
        <translation>只保存在封存區的訊息數（仍然搜尋得到）</translation>
    </message>
    <message>
        <source>When the session&apos;s summary was last written</source>
        <translation>這個對話的摘要上次更新的時間</translation>
    </message>
    <message>
        <source>The size of the recent history; compaction keeps it under the limit set in Settings</source>
        <translation>近期紀錄的大小；整理會讓它保持在設定中的上限以下</translation>
    </message>
    <message>
        <source>{session} (temporary)</source>
        <translation>{session}（暫存）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>無</translation>
    </message>
    <message>
        <source>Filter sessions</source>
        <translation>篩選對話</translation>
    </message>
    <message>
        <source>Shows only the sessions whose title or id holds these letters</source>
        <translation>只顯示標題或 ID 含有這些字的對話</translation>
    </message>
    <message>
        <source>Show temporary sessions</source>
        <translation>顯示暫存對話</translation>
    </message>
    <message>
        <source>Sessions whose name starts with temp- (scratch work of other tools)</source>
        <translation>名稱以 temp- 開頭的對話（其他工具的臨時工作）</translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation>對話</translation>
    </message>
    <message>
        <source>Every session, newest first; Enter opens one, F2 renames it, Delete removes it</source>
        <translation>所有工作階段，最新的在前；Enter 開啟，F2 重新命名，Delete 移除</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重新命名…</translation>
    </message>
    <message>
        <source>Remove…</source>
        <translation>移除…</translation>
    </message>
</context>
<context>
    <name>Settings</name>
    <message>
        <source>Automatic (best local model that loads)</source>
        <translation>自動（使用能載入的最佳本機模型）</translation>
    </message>
    <message>
        <source>Local: multilingual E5 (better quality)</source>
        <translation>本機：多語言 E5（品質較好）</translation>
    </message>
    <message>
        <source>Local: Universal Sentence Encoder (faster)</source>
        <translation>本機：Universal Sentence Encoder（速度較快）</translation>
    </message>
    <message>
        <source>Gemini embeddings (online)</source>
        <translation>Gemini 語意模型（需連網）</translation>
    </message>
    <message>
        <source>Character n-grams (no model; weakest)</source>
        <translation>字元片段比對（不用模型，效果最弱）</translation>
    </message>
    <message>
        <source>Same as the conversation (Chinese as Traditional)</source>
        <translation>跟對話的語言相同（中文一律用繁體）</translation>
    </message>
    <message>
        <source>Same as the system</source>
        <translation>與系統相同</translation>
    </message>
    <message>
        <source>memtray — settings</source>
        <translation>memtray — 設定</translation>
    </message>
    <message>
        <source>paste a new key to replace the stored one</source>
        <translation>貼上新的金鑰來取代已儲存的金鑰</translation>
    </message>
    <message>
        <source>Save key</source>
        <translation>儲存金鑰</translation>
    </message>
    <message>
        <source>Use for this session only</source>
        <translation>只在這次執行使用</translation>
    </message>
    <message>
        <source>Delete key</source>
        <translation>刪除金鑰</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>測試</translation>
    </message>
    <message>
        <source>Make one call to Gemini with this key</source>
        <translation>用這組金鑰呼叫 Gemini 一次，確認能不能用</translation>
    </message>
    <message>
        <source>The language of chat replies and summaries</source>
        <translation>對話回覆和摘要使用的語言</translation>
    </message>
    <message>
        <source>How many recent messages of a session the model sees with each new message</source>
        <translation>每次送出新訊息時，模型能看到這個對話最近的幾則訊息</translation>
    </message>
    <message>
        <source> KiB</source>
        <translation> KiB</translation>
    </message>
    <message>
        <source>When a session&apos;s recent history (the messages sent to the model each turn, kept in history.json) grows past this size, its older messages move to the archive. They can still be searched.</source>
        <translation>當一個對話的近期紀錄（每次會送給模型的訊息，存在 history.json）超過這個大小，較舊的訊息就會移到封存區，之後仍然搜尋得到。</translation>
    </message>
    <message numerus="yes">
        <source>Summarize conversations on a schedule (every %n minute(s))</source>
        <translation>
            <numerusform>定時自動摘要對話（每 %n 分鐘）</numerusform>
        </translation>
    </message>
    <message>
        <source>Start memtray when I log in</source>
        <translation>登入時自動啟動 memtray</translation>
    </message>
    <message>
        <source>For your user account: it starts memtray with this data folder</source>
        <translation>只對你的使用者帳號生效：登入時以這個資料夾啟動 memtray</translation>
    </message>
    <message>
        <source>A new language applies when memtray starts again.</source>
        <translation>新的語言會在下次啟動 memtray 時套用。</translation>
    </message>
    <message>
        <source>Shortcut to search memory</source>
        <translation>搜尋記憶的快速鍵</translation>
    </message>
    <message>
        <source>Press the keys that open memtray&apos;s search from any app (with Ctrl, Alt or Meta); empty for none</source>
        <translation>按下要在任何程式中開啟 memtray 搜尋的按鍵（需含 Ctrl、Alt 或 Meta）；留空表示不使用</translation>
    </message>
    <message>
        <source>Import new turns from coding agents (Claude Code, Codex) as they write them</source>
        <translation>程式助理（Claude Code、Codex）寫下新的對話時，隨即匯入</translation>
    </message>
    <message>
        <source>Other folders: memtray config agent_folders FOLDER[:FOLDER…]</source>
        <translation>要改用其他資料夾：memtray config agent_folders 資料夾[:資料夾…]</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>開啟資料夾</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>儲存</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>關閉</translation>
    </message>
    <message>
        <source>Gemini</source>
        <translation>Gemini</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 金鑰</translation>
    </message>
    <message>
        <source>Summary model</source>
        <translation>摘要模型</translation>
    </message>
    <message>
        <source>Decision model</source>
        <translation>篩選模型</translation>
    </message>
    <message>
        <source>Chat model</source>
        <translation>對話模型</translation>
    </message>
    <message>
        <source>Reply language</source>
        <translation>回覆語言</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>記憶庫</translation>
    </message>
    <message>
        <source>Messages sent each turn</source>
        <translation>每次送給模型的訊息數</translation>
    </message>
    <message>
        <source>Compact history.json above</source>
        <translation>近期紀錄超過此大小時整理</translation>
    </message>
    <message>
        <source>Search by meaning with</source>
        <translation>語意搜尋使用</translation>
    </message>
    <message>
        <source>In use</source>
        <translation>目前使用</translation>
    </message>
    <message>
        <source>App</source>
        <translation>應用程式</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>介面語言</translation>
    </message>
    <message>
        <source>Search memory shortcut</source>
        <translation>搜尋記憶快速鍵</translation>
    </message>
    <message>
        <source>Watched folders</source>
        <translation>監看的資料夾</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>資料存放位置</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>設定</translation>
    </message>
    <message>
        <source>Nothing changed.</source>
        <translation>沒有任何變更。</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>儲存中…</translation>
    </message>
    <message>
        <source>reading the login entry</source>
        <translation>讀取登入啟動項目</translation>
    </message>
    <message>
        <source> The embedder changed: every message is re-embedded in the background.</source>
        <translation>語意模型已變更：所有訊息會在背景重新建立語意索引。</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已儲存。</translation>
    </message>
    <message>
        <source>saving the settings</source>
        <translation>儲存設定</translation>
    </message>
    <message>
        <source>Saving re-embeds every message with the new embedder, in the background (progress in the viewer).</source>
        <translation>儲存後，會用新的語意模型在背景重新為所有訊息建立索引（進度顯示在對話檢視視窗）。</translation>
    </message>
    <message>
        <source>Changing it re-embeds every message in the background; the viewer&apos;s status bar shows the progress.</source>
        <translation>變更後會在背景為所有訊息重新建立語意索引；進度顯示在對話檢視視窗的狀態列。</translation>
    </message>
    <message>
        <source>The memory is not open yet.</source>
        <translation>記憶庫還沒開啟。</translation>
    </message>
    <message>
        <source>Not known yet.</source>
        <translation>還不知道。</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>載入中…</translation>
    </message>
    <message>
        <source>{name}: {reason}</source>
        <translation>{name}：{reason}</translation>
    </message>
    <message numerus="yes">
        <source> (%Ln message(s) waiting to be embedded)</source>
        <translation>
            <numerusform>（還有 %Ln 則訊息等待建立語意索引）</numerusform>
        </translation>
    </message>
    <message>
        <source>{caption} (all devices)</source>
        <translation>{caption}（所有裝置）</translation>
    </message>
    <message>
        <source>Shared by every device of your sync folder: a change here applies on all of them.</source>
        <translation>同步資料夾中的每部裝置共用此設定：在這裡修改，所有裝置都會套用。</translation>
    </message>
    <message>
        <source>none yet (no ~/.claude/projects or ~/.codex/sessions here)</source>
        <translation>目前沒有（這台電腦上沒有 ~/.claude/projects 或 ~/.codex/sessions）</translation>
    </message>
    <message>
        <source>Looking for the key…</source>
        <translation>正在尋找金鑰…</translation>
    </message>
    <message>
        <source>Testing the key with one call to {model}…</source>
        <translation>正在呼叫 {model} 一次來測試金鑰…</translation>
    </message>
    <message>
        <source>Testing the Gemini key</source>
        <translation>正在測試 Gemini 金鑰</translation>
    </message>
    <message>
        <source>paste a key to replace {masked}</source>
        <translation>貼上金鑰來取代 {masked}</translation>
    </message>
    <message>
        <source>paste your key</source>
        <translation>貼上你的金鑰</translation>
    </message>
    <message>
        <source>using the key</source>
        <translation>使用金鑰</translation>
    </message>
</context>
<context>
    <name>Shortcut</name>
    <message>
        <source>{keys} opens this search from any app.</source>
        <translation>在任何應用程式中按 {keys} 都能開啟這個搜尋。</translation>
    </message>
    <message>
        <source>{keys} is already used by another app, so it cannot open memtray&apos;s search. Free it there, or use Search memory… in the tray menu.</source>
        <translation>{keys} 已被其他應用程式占用，無法用來開啟 memtray 的搜尋。請在該程式中釋出這組按鍵，或改用系統匣選單的「搜尋記憶…」。</translation>
    </message>
    <message>
        <source>On Wayland, apps cannot have a global shortcut. In your desktop&apos;s keyboard settings, make one that runs: {command}</source>
        <translation>在 Wayland 上，應用程式無法自行設定全域快捷鍵。請到桌面環境的鍵盤設定中新增一組快捷鍵，執行：{command}</translation>
    </message>
    <message>
        <source>This desktop offers memtray no global shortcut.</source>
        <translation>這個桌面環境不提供 memtray 全域快捷鍵。</translation>
    </message>
    <message>
        <source>The global shortcut {keys} could not be set up: {reason}</source>
        <translation>無法設定全域快捷鍵 {keys}：{reason}</translation>
    </message>
</context>
<context>
    <name>Status</name>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>less than a minute</source>
        <translation>不到一分鐘</translation>
    </message>
    <message numerus="yes">
        <source>about %n min</source>
        <translation>
            <numerusform>約 %n 分鐘</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %n h</source>
        <translation>
            <numerusform>約 %n 小時</numerusform>
        </translation>
    </message>
    <message>
        <source>Re-embedding {done} of {total}</source>
        <translation>正在重建語意索引：{done} / {total}</translation>
    </message>
    <message>
        <source>Embedding {done} of {total}</source>
        <translation>正在建立語意索引：{done} / {total}</translation>
    </message>
    <message>
        <source>{progress} · {eta}</source>
        <translation>{progress} · {eta}</translation>
    </message>
    <message>
        <source>Database damaged — Repair…</source>
        <translation>資料庫損壞 — 修復…</translation>
    </message>
    <message>
        <source>The memory could not be opened</source>
        <translation>無法開啟記憶</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在啟動…</translation>
    </message>
    <message>
        <source>{task}…</source>
        <translation>{task}…</translation>
    </message>
    <message>
        <source>Summaries paused</source>
        <translation>自動摘要已暫停</translation>
    </message>
    <message>
        <source>Up to date</source>
        <translation>一切就緒</translation>
    </message>
    <message>
        <source>Sync: no key on this device (enter the passphrase in Settings)</source>
        <translation>同步：這台裝置沒有金鑰（請在「設定」中輸入密語）</translation>
    </message>
    <message>
        <source>Sync: {error}</source>
        <translation>同步：{error}</translation>
    </message>
    <message>
        <source>Sync on, not synced yet</source>
        <translation>同步已開啟，尚未同步過</translation>
    </message>
    <message>
        <source>Synced {when}</source>
        <translation>已同步（{when}）</translation>
    </message>
    <message numerus="yes">
        <source>Embedding paused: %Ln message(s) waiting</source>
        <translation>
            <numerusform>語意索引已暫停：%Ln 則訊息等候中</numerusform>
        </translation>
    </message>
    <message>
        <source>Embedding paused</source>
        <translation>語意索引已暫停</translation>
    </message>
    <message numerus="yes">
        <source>Rebuilding the search index of %Ln session(s)…</source>
        <translation>
            <numerusform>正在重建 %Ln 段對話的搜尋索引…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Summary</name>
    <message>
        <source>(untitled)</source>
        <translation>（未命名）</translation>
    </message>
    <message>
        <source>Perspectives: {text}</source>
        <translation>各方觀點：{text}</translation>
    </message>
    <message>
        <source>Direction: {text}</source>
        <translation>方向：{text}</translation>
    </message>
    <message>
        <source>No summary yet. Summaries are written when a conversation grows.</source>
        <translation>還沒有摘要。對話累積到一定長度後就會產生摘要。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>無</translation>
    </message>
    <message>
        <source>Key decisions</source>
        <translation>重要決定</translation>
    </message>
    <message>
        <source>Current discussion</source>
        <translation>目前的討論</translation>
    </message>
    <message>
        <source>Past discussions</source>
        <translation>過去的討論</translation>
    </message>
    <message>
        <source>Summarize now</source>
        <translation>立即產生摘要</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>The session&apos;s rolling summary: its decisions and discussions</source>
        <translation>這段對話的滾動摘要：決定與討論</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>載入中…</translation>
    </message>
    <message>
        <source>Summarized up to {time}</source>
        <translation>已摘要到 {time}</translation>
    </message>
    <message>
        <source>Not summarized yet</source>
        <translation>還沒有摘要</translation>
    </message>
    <message>
        <source>loading the summary</source>
        <translation>載入摘要</translation>
    </message>
</context>
<context>
    <name>Sync</name>
    <message>
        <source>Sync is off.</source>
        <translation>同步未開啟。</translation>
    </message>
    <message>
        <source>This device: {name} ({device})</source>
        <translation>這台裝置：{name}（{device}）</translation>
    </message>
    <message>
        <source>Last sync: {when}</source>
        <translation>上次同步：{when}</translation>
    </message>
    <message numerus="yes">
        <source>Waiting to be sent: %Ln message(s)</source>
        <translation>
            <numerusform>等待送出：%Ln 則訊息</numerusform>
        </translation>
    </message>
    <message>
        <source>The key is not on this device: enter the passphrase and enable again.</source>
        <translation>這台裝置上沒有金鑰：請輸入密語後再啟用一次。</translation>
    </message>
    <message>
        <source>Last error: {error}</source>
        <translation>上次的錯誤：{error}</translation>
    </message>
    <message>
        <source>No other device has written to the folder yet.</source>
        <translation>還沒有其他裝置寫入這個資料夾。</translation>
    </message>
    <message>
        <source>{name}: applied {applied} of {written} ({pending} pending), last applied {when}</source>
        <translation>{name}：已套用 {written} 份中的 {applied} 份（{pending} 份待處理），上次套用：{when}</translation>
    </message>
    <message>
        <source>Watching the folder: changes arrive within seconds.</source>
        <translation>正在監看資料夾：變更會在幾秒內送達。</translation>
    </message>
    <message>
        <source>Not watching the folder ({error}): syncing every minute.</source>
        <translation>未監看資料夾（{error}）：每分鐘同步一次。</translation>
    </message>
    <message>
        <source>Not watching the folder: syncing every minute.</source>
        <translation>未監看資料夾：每分鐘同步一次。</translation>
    </message>
    <message>
        <source>Sync between your devices</source>
        <translation>在你的裝置之間同步</translation>
    </message>
    <message>
        <source>a folder Syncthing, Dropbox or a share keeps in step</source>
        <translation>由 Syncthing、Dropbox 或共用資料夾保持同步的資料夾</translation>
    </message>
    <message>
        <source>Sync folder</source>
        <translation>同步資料夾</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>選擇…</translation>
    </message>
    <message>
        <source>Choose the sync folder</source>
        <translation>選擇同步資料夾</translation>
    </message>
    <message>
        <source>this computer&apos;s name</source>
        <translation>這台電腦的名稱</translation>
    </message>
    <message>
        <source>This device&apos;s name</source>
        <translation>這台裝置的名稱</translation>
    </message>
    <message>
        <source>Sync passphrase</source>
        <translation>同步密語</translation>
    </message>
    <message>
        <source>Every device of this folder uses the same passphrase; it encrypts what is synced</source>
        <translation>這個資料夾的每台裝置都使用同一個密語；同步的內容以它加密</translation>
    </message>
    <message>
        <source>Passphrase again</source>
        <translation>再輸入一次密語</translation>
    </message>
    <message>
        <source>Enable sync</source>
        <translation>啟用同步</translation>
    </message>
    <message>
        <source>Sync now</source>
        <translation>立即同步</translation>
    </message>
    <message>
        <source>Disable sync</source>
        <translation>停用同步</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>資料夾</translation>
    </message>
    <message>
        <source>Device name</source>
        <translation>裝置名稱</translation>
    </message>
    <message>
        <source>Passphrase</source>
        <translation>密語</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>狀態</translation>
    </message>
    <message>
        <source>The memory is not open yet.</source>
        <translation>記憶庫還沒開啟。</translation>
    </message>
    <message>
        <source>This folder already holds memtray&apos;s sync: enter its passphrase to join it.</source>
        <translation>這個資料夾已經有 memtray 的同步資料：輸入它的密語即可加入。</translation>
    </message>
    <message>
        <source>memtray will set up sync in this folder: choose a passphrase (every device needs it).</source>
        <translation>memtray 會在這個資料夾設定同步：請設定一個密語（每台裝置都需要它）。</translation>
    </message>
    <message>
        <source>Enable again</source>
        <translation>重新啟用</translation>
    </message>
    <message>
        <source>Choose the folder your sync program keeps in step</source>
        <translation>選擇由你的同步程式保持同步的資料夾</translation>
    </message>
    <message>
        <source>Choose the sync folder first.</source>
        <translation>請先選擇同步資料夾。</translation>
    </message>
    <message>
        <source>Enter the passphrase.</source>
        <translation>請輸入密語。</translation>
    </message>
    <message>
        <source>The two passphrases differ: type them again.</source>
        <translation>兩次輸入的密語不一樣：請重新輸入。</translation>
    </message>
    <message>
        <source>Opening the folder with the passphrase…</source>
        <translation>正在用密語開啟資料夾…</translation>
    </message>
    <message>
        <source>Sync is on: this device joined the folder.</source>
        <translation>同步已開啟：這台裝置已加入此資料夾。</translation>
    </message>
    <message>
        <source>Sync is on.</source>
        <translation>同步已開啟。</translation>
    </message>
    <message>
        <source>Syncing…</source>
        <translation>正在同步…</translation>
    </message>
    <message>
        <source>Synced.</source>
        <translation>已同步。</translation>
    </message>
    <message>
        <source>Sync is off; the folder&apos;s files were left as they are.</source>
        <translation>同步已停用；資料夾裡的檔案保持原樣。</translation>
    </message>
    <message>
        <source>setting up sync</source>
        <translation>設定同步</translation>
    </message>
</context>
<context>
    <name>Time</name>
    <message>
        <source>never</source>
        <translation>從未</translation>
    </message>
    <message>
        <source>just now</source>
        <translation>剛剛</translation>
    </message>
    <message numerus="yes">
        <source>%n min ago</source>
        <translation>
            <numerusform>%n 分鐘前</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n h ago</source>
        <translation>
            <numerusform>%n 小時前</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n day(s) ago</source>
        <translation>
            <numerusform>%n 天前</numerusform>
        </translation>
    </message>
    <message>
        <source>unknown time</source>
        <translation>時間不明</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <source>memtray — cannot open the memory: {error}</source>
        <translation>memtray — 無法開啟記憶庫：{error}</translation>
    </message>
    <message>
        <source>memtray — starting…</source>
        <translation>memtray — 啟動中…</translation>
    </message>
    <message numerus="yes">
        <source>memtray — %Ln session(s)</source>
        <translation>
            <numerusform>memtray — %Ln 個對話</numerusform>
        </translation>
    </message>
    <message>
        <source>Last summary run: {when} (paused)</source>
        <translation>上次摘要：{when}（已暫停）</translation>
    </message>
    <message>
        <source>Last summary run: {when} (off: no Gemini key; add one in Settings)</source>
        <translation>上次摘要：{when}（未啟用：沒有 Gemini 金鑰，請到「設定」加入）</translation>
    </message>
    <message>
        <source>Last summary run: {when}</source>
        <translation>上次摘要：{when}</translation>
    </message>
</context>
<context>
    <name>Viewer</name>
    <message>
        <source>memtray — sessions</source>
        <translation>memtray — 對話</translation>
    </message>
    <message>
        <source>Views of the session</source>
        <translation>對話的檢視</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>對話內容</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>搜尋</translation>
    </message>
    <message>
        <source>Import of {name} cancelled</source>
        <translation>已取消匯入 {name}</translation>
    </message>
    <message>
        <source>What was stored before the cancel stays; importing the file again adds only what is missing.</source>
        <translation>取消前已存入的內容會保留；再匯入一次這個檔案，只會補上缺少的部分。</translation>
    </message>
    <message>
        <source>Imported {name}</source>
        <translation>已匯入 {name}</translation>
    </message>
    <message>
        <source>importing {name}</source>
        <translation>匯入 {name}</translation>
    </message>
    <message>
        <source> Nothing was imported.</source>
        <translation>沒有匯入任何內容。</translation>
    </message>
    <message>
        <source>memtray: import</source>
        <translation>memtray：匯入</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>Error memory</source>
        <translation>工具錯誤紀錄</translation>
    </message>
    <message>
        <source>The messages of “{title}” were deleted.</source>
        <translation>「{title}」的訊息已刪除。</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>複製</translation>
    </message>
    <message>
        <source>Forget this message…</source>
        <translation>遺忘這則訊息…</translation>
    </message>
    <message>
        <source>Not archived yet, so there is nothing to forget</source>
        <translation>還沒有封存，所以沒有東西可以遺忘</translation>
    </message>
</context>
<context>
    <name>Welcome</name>
    <message>
        <source>Welcome to memtray</source>
        <translation>歡迎使用 memtray</translation>
    </message>
    <message>
        <source>memtray keeps your conversations with AI assistants on this computer and finds anything in them again, by keyword or by meaning. There are no conversations here yet; here is how to begin.</source>
        <translation>memtray 會把你和 AI 助理的對話保存在這台電腦上，之後可以用關鍵字或語意找回任何內容。這裡還沒有任何對話，可以從下面幾種方式開始：</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>匯入…</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新對話</translation>
    </message>
    <message>
        <source>Open Settings</source>
        <translation>開啟設定</translation>
    </message>
    <message>
        <source>Open the data folder</source>
        <translation>開啟資料夾</translation>
    </message>
    <message>
        <source>Bring in the conversations you already have: a ChatGPT or Claude data export, an Agenvoy sessions folder, or a JSON Lines file. Importing the same file twice adds nothing.</source>
        <translation>把你已經有的對話帶進來：ChatGPT 或 Claude 匯出的資料、Agenvoy 的對話資料夾，或 JSON Lines 檔。同一個檔案匯入兩次也不會重複。</translation>
    </message>
    <message>
        <source>Talk with Gemini here; memtray remembers the conversation and looks into its memory when it helps.</source>
        <translation>直接在這裡和 Gemini 對話；memtray 會記住對話內容，需要時也會查閱記憶庫。</translation>
    </message>
    <message>
        <source>Add a Gemini API key in Settings: chats and the automatic summaries need one. Importing and searching work without it.</source>
        <translation>到「設定」加入 Gemini API 金鑰：對話和自動摘要都需要它；匯入和搜尋則不需要。</translation>
    </message>
    <message>
        <source>Everything memtray keeps stays in its data folder.</source>
        <translation>memtray 保存的所有資料都放在它的資料夾裡。</translation>
    </message>
    <message>
        <source>Everything memtray keeps stays on this computer, in {folder}: the conversations, their summaries, the search index and the log.</source>
        <translation>memtray 保存的所有資料都留在這台電腦的 {folder}：包括對話、摘要、搜尋索引和記錄檔。</translation>
    </message>
</context>
</TS>
