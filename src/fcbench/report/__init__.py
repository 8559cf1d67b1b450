"""fcbench.report"""
