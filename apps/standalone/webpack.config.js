module.exports = require('../../tools/webpack/app.webpack')('standalone');
