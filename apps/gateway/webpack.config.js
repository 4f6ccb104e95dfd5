module.exports = require('../../tools/webpack/app.webpack')('gateway');
