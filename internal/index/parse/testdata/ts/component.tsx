import React, { useState } from 'react';
import type { Props } from './types';
import styles from './component.module.css';

export const Button = ({ label }: Props) => <button className={styles.btn}>{label}</button>;

export default function Panel(props: Props) {
  const [open, setOpen] = useState(false);
  const Heavy = React.lazy(() => import('./Heavy'));
  return (
    <div onClick={() => setOpen(!open)}>
      {/* require('./in-comment') */}
      <p>import('./in-text')</p>
      <Heavy />
    </div>
  );
}

export class Legacy extends React.Component<Props> {
  render() {
    return <span>{this.props.label}</span>;
  }
}
