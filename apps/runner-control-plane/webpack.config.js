module.exports = require('../../tools/webpack/app.webpack')('runner-control-plane');
