// Jest global teardown: remove the test run's temporary directory (tmp-setup.js).
const fs = require('fs');

module.exports = async function () {
  const dir = process.env.TL_TEST_TMPDIR;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
};
