// A small hand-written lexicon of the words agents and tool authors use for the same capability
// ("save" a file vs write_file, "folder" vs directory, "compute" vs calculate), and English words
// for the Chinese ones some MCP servers describe their tools with. WordNet misses most of these:
// its senses are general English, not software. Each line is a group; at build time every word
// of a group reaches the other words of the group that the catalog contains (see search-index.ts).
// Kept to general vocabulary of tools, never to one catalog's tool names.
const GROUPS = `
save write store persist
folder directory dir
fetch retrieve download obtain pull
search find lookup seek query
list enumerate show display
compute calculate calculator evaluate arithmetic math
delete remove erase
create make generate new
edit modify update change alter
read open load view
run execute launch start invoke
stop terminate kill end halt
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
click press tap
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
search 搜索 检索 查询
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

/** Groups of words meant alike, as written above (lower case, unstemmed). */
export function lexiconGroups(): string[][] {
  return GROUPS.split("\n")
    .map((l) => l.trim().split(/\s+/).filter(Boolean))
    .filter((g) => g.length > 1);
}
