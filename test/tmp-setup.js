// Jest global setup: every temporary directory of this test run (os.tmpdir() in the tests and in
// what they spawn) goes into one directory of its own, removed by tmp-teardown.js. Before, each
// run left some 300 directories in /tmp.
const fs = require('fs');
const os = require('os');
const path = require('path');

module.exports = async function () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-test-'));
  process.env.TL_TEST_TMPDIR = dir;
  process.env.TMPDIR = dir; // read by os.tmpdir() at each call; the test workers start after this
  // what track-launch keeps per user (the job index) stays in the test run's directory, not in $HOME
  process.env.XDG_STATE_HOME = path.join(dir, 'state');
};
