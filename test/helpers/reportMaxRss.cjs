// Preloaded (`node --require`) into a child process whose memory a test checks: on exit,
// writes the peak resident set size to stderr as `max_rss_kb N`.
process.on("exit", () => {
  process.stderr.write(`\nmax_rss_kb ${process.resourceUsage().maxRSS}\n`);
});
