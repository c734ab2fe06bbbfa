// A small hand-written lexicon of the words agents and tool authors use for the same capability
// ("save" a file vs write_file, "folder" vs directory, "compute" vs calculate), and English words
// for the Chinese ones some MCP servers describe their tools with. WordNet misses most of these:
// its senses are general English, not software. Each line is a group; at build time every word
// of a group reaches the other words of the group that the catalog contains (see search-index.ts).
// Kept to general vocabulary of tools, never to one catalog's tool names.
//
// Two weights (test/eval/README.md, "Sixth round"): the generic verbs (VERBS: change, fetch, new
// stray into every catalog) at `lexiconWeight`; the capability groups (GROUPS: folder, chart,
// bitcoin) at the stronger `capabilityWeight`, word pair by word pair where both words are specific
// (`strongWord`); the other pairs of a capability group stay at `lexiconWeight`.
import type { WordLookup } from "./wordnet.js";

const VERBS = `
save write store persist
fetch retrieve download obtain pull
search find lookup seek query
list enumerate show display
create make generate new
edit modify update change alter
read open load view
run execute launch start invoke
stop terminate kill end halt
delete remove erase
click press tap
search 搜索 检索 查询
`;

const GROUPS = `
folder directory dir
compute calculate calculator evaluate arithmetic math
picture image photo img
webpage website site page url web html
price quote worth cost value valuation
forecast weather
chart graph plot diagram visualize visualization
document doc docx word
spreadsheet excel xlsx sheet workbook
presentation powerpoint ppt pptx slide slides deck
repo repository
crypto cryptocurrency bitcoin btc ethereum eth coin token
stock share ticker equity
news headline headlines
paper article publication preprint
summary summarize overview abstract
location place address spot
route directions navigation itinerary
trending trend popular hot
email mail
video youtube
rent lodging listing apartment accommodation stay airbnb
nearby near around close
note memo notes
screenshot capture snapshot
audio music sound song track
package library module dependency
currency exchange forex
transcript subtitles captions
commit checkin
translate translation
random shuffle
domain whois
recipe recipes dish meal cook cooking
train railway rail
ticket tickets
weather 天气
train 火车 列车 车次
ticket 车票 余票
station 车站
recipe 菜谱 食谱
dish 菜品
news 新闻 资讯
trending 热榜 热搜 热门
rank 排行 排名
stock 股票
card 卡牌
slide 幻灯片 幻灯
file 文件
image 图片 图像
date 日期
calendar 黄历 日历
character 角色
component 组件
document 文档
webpage 网页
`;

const parse = (text: string): string[][] =>
  text
    .split("\n")
    .map((l) => l.trim().split(/\s+/).filter(Boolean))
    .filter((g) => g.length > 1);

/** Groups of words meant alike, as written above (lower case, unstemmed): the verbs, then the capability groups. */
export function lexiconGroups(): string[][] {
  return [...parse(VERBS), ...parse(GROUPS)];
}

/**
 * Capability words that reach their group at the verb weight only: "compute" encodes as "computer"
 * does, so "using a computer" met the calculator (a MetaTool dev request no tool serves), and "html"
 * names a format, not a site ("the code hosting site" met the HTML converters, paraphrase-mcp dev).
 */
const WEAK_WORDS = new Set(["compute", "html"]);
/** WordNet senses above this make a word generic ("page" 9, "close" 37, "stay" 16): its pairs stay at the verb weight. */
const MAX_SENSES = 6;

/**
 * Whether a capability word may carry the strong weight: not marked weak, at most MAX_SENSES WordNet
 * senses, and its stem is not another English word ("news" encodes as "new", "listing" as "list",
 * "directions" as "direct", "dependency" as "depend": the stem would pull in that word's requests).
 */
export function strongWord(word: string, stem: string, senses: WordLookup<number>): boolean {
  return !WEAK_WORDS.has(word) && (senses.get(word) ?? 1) <= MAX_SENSES && (stem === word || senses.get(stem) === undefined);
}

/** Word pairs of a group (a reaches b, both as written) with whether the pair may carry the capability weight. */
export function lexiconPairs(encode: (word: string) => string | undefined, senses: WordLookup<number>): { from: string; to: string; strong: boolean }[] {
  const out: { from: string; to: string; strong: boolean }[] = [];
  const add = (groups: string[][], capability: boolean) => {
    for (const group of groups) {
      const words = group.flatMap((w) => {
        const stem = encode(w);
        return stem === undefined ? [] : [{ stem, strong: capability && strongWord(w, stem, senses) }];
      });
      for (const a of words) for (const b of words) if (a.stem !== b.stem) out.push({ from: a.stem, to: b.stem, strong: a.strong && b.strong });
    }
  };
  add(parse(VERBS), false);
  add(parse(GROUPS), true);
  return out;
}
