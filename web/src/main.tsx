import { render } from 'preact';
import { App } from './app.js';
import './app.css';
import './cards.css';
import './views.css';
import './insights.css';

render(<App />, document.getElementById('app')!);
