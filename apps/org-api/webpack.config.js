module.exports = require('../../tools/webpack/app.webpack')('org-api', { tools: ['reset-password'] });
