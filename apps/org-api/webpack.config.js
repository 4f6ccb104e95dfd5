module.exports = require('../../tools/webpack/app.webpack')('org-api');
