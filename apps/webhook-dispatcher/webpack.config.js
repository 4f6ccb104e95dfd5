module.exports = require('../../tools/webpack/app.webpack')('webhook-dispatcher');
