/**
 * The generic vocabulary of software work, as a prior on evidence. A directory of thirty memories
 * cannot tell which of its words are specific: "commit" in the one note on commit messages looks as
 * rare there as "keystore", so "how do I squash my last three commits" looked like evidence for
 * it, and "write a function that checks for a palindrome" for the note that mentions a function.
 * Outside the directory these words are in every coding question of every project: the nouns of
 * code (function, string, array, object, file, type), its verbs (parse, sort, remove, convert) and
 * the places work happens (branch, commit, release, server, browser). A match on one of them counts
 * as an everyday word does (half a specific word, lexical/everyday.ts): two of them together, or
 * one beside a specific word, are still evidence; one alone is not.
 *
 * Written in our own words from what any codebase's prose holds, not grown per case: no product
 * or tool name is here (a note on Detox, Kafka or Airflow is found by that name alone), nor the
 * words a memory about a practice is named by ("test", "build", "install": "how do I run the
 * tests" is answered by the note on the test runner; measured on the labeled sets, docs/eval.md).
 * The mainstream programming languages and runtimes are: the language a project is written in is
 * in most of its coding questions ("Python 装饰器怎么写", "what does the never type mean in
 * TypeScript"), so a note that names it is no evidence for one of them alone; beside another
 * shared word it still is.
 * English words are matched by stem; CJK entries (katakana loanwords and Chinese terms of three or
 * more characters: two-character CJK words are already weak, see matched-words.ts) as written.
 */
import { stemWord } from '../tokenize.js';

const GENERIC_ENGLISH =
  // The nouns of code.
  (
    'code function method class object array list string number integer value variable type ' +
    'interface property field key map loop return argument parameter option setting default ' +
    'config configuration configure constant expression statement syntax operator boolean null ' +
    'module helper util utility ' +
    'library component element item instance template generic callback promise async ' +
    // Files and text.
    'file folder directory path line text character byte content format name example comment ' +
    'script command output input message document ' +
    // What code does and what is done to it.
    'run check parse sort search filter find read write create delete remove add ' +
    'change update rename move copy open close call handle validate convert implement refactor ' +
    'clean improve optimize debug import export load save print apply require ' +
    // Where work happens and its artefacts.
    'branch commit merge release version project repository repo source app application service ' +
    'server client browser page request response api data table query error bug issue problem ' +
    'fail ' +
    'warning exception support feature tool system process environment local remote production ' +
    // What every project touches, whatever it is written in (a note naming git or SQL is found by
    // what it says about them), and the languages it is written in.
    'git sql http json yaml html css bash shell linux ts js port style ' +
    'python typescript javascript node java kotlin swift rust ruby php ' +
    // Qualities asked about in any question.
    'fast slow performance simple small large old public private internal external difference ' +
    'best practice way work'
  ).split(' ');

const GENERIC_CJK = (
  'ファイル コマンド スクリプト コミット チェック エラー データ コード クラス ' +
  'メソッド オブジェクト フォルダー フォルダ プログラム サーバー クライアント ブランチ ' +
  'ライブラリ パッケージ バージョン リリース 数据库 代码库 服务器 客户端 ' +
  // Two-character words are weak already (matched-words.ts); these are listed so that a prompt
  // holding one no memory knows ("更新一下文档": update the docs) is not taken for one about
  // something else, as "update" is not in English.
  '解释 说明 执行 运行 配置 设置 删除 添加 修改 更新 文件 代码 数据 问题 错误 报错 命令 查看 ' +
  '确认 方法 使用 实现 区别 函数 类型 变量 读取 写入 创建 流程 步骤 ' +
  '説明 実行 設定 削除 追加 変更 修正 確認 方法 使用 実装 作成 意味 関数 変数 書き 読み'
).split(' ');

let generic: ReadonlySet<string> | undefined;

/** True for the stem of a generic software word, or a generic CJK word as written. */
export function isGenericTerm(term: string): boolean {
  generic ??= new Set([...GENERIC_ENGLISH.map(stemWord), ...GENERIC_CJK]);
  return generic.has(term);
}
