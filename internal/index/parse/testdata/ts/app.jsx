'use strict';
const path = require('path');
const { helper } = require("./helper");
const config = require(`./config`);
const locale = require(`./locale/${lang}`);
import Widget from './Widget.jsx';

function App() {
  const other = require('./other');
  return <Widget onClick={() => import('./chunk')}>{require('./inline')}</Widget>;
}

class Store {
  constructor() { this.items = []; }
  add(item) { this.items.push(item); }
  static get instance() { return new Store(); }
}

var handler = function () {};
let counter = 0;
const escaped = require('./caf\u00e9');
module.exports = { App, Store, tools: require('./tools') };
require.resolve('./resolved');
